package shell

import (
	"strings"
)

// This file expands the globs of a for loop's word list against the
// directory entries the caller lists (Options.Glob): `for d in */` walks
// its body once per directory of the workspace, each a known word, as
// bash would. The analyser itself never reads the file system; without
// Options.Glob, or past a bound, a glob stays a pattern as before.

// GlobFunc lists the entries of the directory dir (absolute) whose name
// matches pattern, one path component with bash's default rules (* and
// ? only, no leading dot matched), sorted as bash sorts them; with
// dirsOnly, only directories (and links to them). ok is false when the
// directory cannot be read or holds more entries than the function is
// willing to read: the glob then stays unknown.
type GlobFunc func(dir, pattern string, dirsOnly bool) (names []string, ok bool)

// Bounds of loop glob expansion.
const (
	maxGlobCalls = 8 // Options.Glob calls per analysis
	maxGlobItems = 8 // words a loop's list may expand to (the exact-walk bound)
)

// countGlob bounds the calls of fn over one analysis.
func countGlob(fn GlobFunc) GlobFunc {
	if fn == nil {
		return nil
	}
	n := 0
	return func(dir, pattern string, dirsOnly bool) ([]string, bool) {
		if n++; n > maxGlobCalls {
			return nil, false
		}
		return fn(dir, pattern, dirsOnly)
	}
}

// expandGlobs replaces each plain glob of a loop's items by its matches
// (Options.Glob); the items are returned unchanged when one cannot be
// expanded exactly or when they would be more than the bound.
func (a *analyzer) expandGlobs(items []Word) []Word {
	if a.opt.Glob == nil {
		return items
	}
	var out []Word
	for i, it := range items {
		if !it.Glob {
			out = append(out, it)
			continue
		}
		names, ok := a.globItem(it)
		if !ok || len(out)+len(names)+len(items)-i-1 > maxGlobItems {
			return items
		}
		out = append(out, names...)
	}
	return out
}

// globItem expands one glob word whose wildcards are all in its last
// component: "*/", "src/*.go", "~/proj/*".
func (a *analyzer) globItem(w Word) ([]Word, bool) {
	pat := w.Value
	if !w.Known || w.flags != 0 || w.proc != 0 || w.sel != nil || (w.pat != "" && w.pat != pat) {
		return nil, false // quoted metacharacters, or a set the analysis built
	}
	dirsOnly := strings.HasSuffix(pat, "/")
	body := strings.TrimRight(pat, "/")
	dir, last := "", body
	if i := strings.LastIndexByte(body, '/'); i >= 0 {
		dir, last = body[:i+1], body[i+1:]
	}
	if last == "" || last[0] == '.' || strings.ContainsAny(last, "[\\") ||
		strings.ContainsAny(dir, "*?[\\") || strings.Contains(dir, "..") {
		// A leading dot may match "." and "..": bash versions differ.
		return nil, false
	}
	abs := a.cwd
	if dir != "" {
		var ok bool
		if abs, ok = a.absPath(a.cwd, dir); !ok {
			return nil, false
		}
	}
	if abs == "" {
		return nil, false
	}
	names, ok := a.opt.Glob(abs, last, dirsOnly)
	if !ok || len(names) == 0 || len(names) > maxGlobItems {
		// No match: bash keeps the pattern itself as the word.
		return nil, false
	}
	out := make([]Word, 0, len(names))
	for _, n := range names {
		if !tempComponent(n) || n[0] == '.' || strings.ContainsAny(n, "*?[\\ \t\n'\"$`") {
			return nil, false // a name a later unquoted use would split or expand again
		}
		v := dir + n
		if dirsOnly {
			v += "/"
		}
		out = append(out, Word{Value: v, Known: true})
	}
	return out, true
}
