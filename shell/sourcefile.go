package shell

import "strings"

// This file walks the file `source FILE` (or `. FILE`) runs, in this
// shell, when the caller can read it (Options.Source): the variables it
// sets and the directory it leaves stay known (. .venv/bin/activate &&
// pytest > report.txt), and what it does is judged as the command's own.
// Without Options.Source, or past a bound, the file is code the walk does
// not see, as before: any variable and the directory are unknown after it.

// SourceFunc returns the content of the file at the absolute path p for
// a source builtin; ok is false when it will not or cannot read it (the
// file is then unknown code).
type SourceFunc func(p string) (code string, ok bool)

// maxSourceCalls bounds the Options.Source calls of one analysis.
const maxSourceCalls = 4

// countSource bounds the calls of fn over one analysis.
func countSource(fn SourceFunc) SourceFunc {
	if fn == nil {
		return nil
	}
	n := 0
	return func(p string) (string, bool) {
		if n++; n > maxSourceCalls {
			return "", false
		}
		return fn(p)
	}
}

// sourced walks the file a source builtin runs; it reports whether it
// could. A name without "/" is looked up in PATH first by bash, and
// arguments after the file set the positional parameters: neither is
// walked.
func (a *analyzer) sourced(c *Call) bool {
	if a.opt.Source == nil || len(c.Args) != 1 || !c.Args[0].Known || !strings.Contains(c.Args[0].Value, "/") {
		return false
	}
	p, ok := a.abs(c, c.Args[0])
	if !ok {
		return false
	}
	code, ok := a.opt.Source(p)
	if !ok || len(code) > a.opt.MaxBytes {
		return false
	}
	prog := c.prog
	c.prog = nil // it runs in this shell: its state stays
	a.runShell(c, Word{Value: code, Known: true})
	c.prog = prog
	return true
}
