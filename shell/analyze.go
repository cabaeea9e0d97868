package shell

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Options configures one analysis. Everything the analyser knows about the
// machine comes from here: it never reads the file system or the
// environment of the process.
type Options struct {
	Cwd      string                     // absolute working directory; relative paths resolve against it
	Home     string                     // what ~ and $HOME mean
	Env      map[string]string          // optional extra known variables
	MaxDepth int                        // nesting depth bound (default 4)
	MaxBytes int                        // input size bound (default 64 KiB)
	MaxNodes int                        // work bound in words and commands (default 20000)
	Lookup   func(name string) *Program // knowledge base (default: the built-in one)
	// Glob, when set, lists directory entries for the globs of a for
	// loop's word list (globexpand.go); nil leaves them patterns.
	Glob GlobFunc
	// Source, when set, reads the file a source builtin runs
	// (sourcefile.go); nil leaves it unknown code.
	Source SourceFunc
}

// Default bounds.
const (
	DefaultMaxDepth = 4
	DefaultMaxBytes = 64 << 10
	DefaultMaxNodes = 20000

	maxDecoded   = 64 << 10 // decoded data bound
	maxBraces    = 256      // brace expansion bound (words per word)
	maxGlobNames = 8        // programs a glob command name may stand for
)

// analyzerPool recycles analyzers (with their parser and scratch
// buffers) between analyses; nothing an analyzer owns ends up in the
// Effects it returns.
var analyzerPool = sync.Pool{New: func() any {
	return &analyzer{parser: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

// effectsBuf holds the Effects with room for its usual facts, allocated
// at once.
type effectsBuf struct {
	eff   Effects
	execs [4]Exec
	paths [4]PathUse
	tags  [2]Tag
}

// Analyze statically analyses a bash command and returns its effects. It
// never panics and never fails: what it cannot parse or resolve is
// recorded as TagOpaque, and a bound that was hit as TagLimitExceeded.
func Analyze(cmd string, opt Options) (eff *Effects) {
	buf := new(effectsBuf)
	eff = &buf.eff
	eff.Execs, eff.Paths, eff.Tags = buf.execs[:0], buf.paths[:0], buf.tags[:0]
	loadNames()
	a := analyzerPool.Get().(*analyzer)
	a.start(eff, opt)
	defer func() {
		if r := recover(); r != nil {
			// Fail closed: an analyser bug must never look like "no
			// effects". The analyzer's state is suspect: not recycled.
			a.tagf(nil, TagOpaque, "internal error")
			return
		}
		a.release()
		analyzerPool.Put(a)
	}()
	if len(cmd) > a.opt.MaxBytes {
		a.tagf(nil, TagLimitExceeded, "bytes")
		return eff
	}
	out := a.shellCode(cmd, nil, "")
	a.uncalled()
	a.printed(out)
	if len(a.downloaded) > 0 {
		eff.Downloads = append([]string(nil), a.downloaded...)
	}
	return eff
}

// start prepares a recycled analyzer for one analysis.
func (a *analyzer) start(eff *Effects, opt Options) {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = DefaultMaxDepth
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxNodes <= 0 {
		opt.MaxNodes = DefaultMaxNodes
	}
	if opt.Lookup == nil {
		opt.Lookup = lookup
	}
	cwd := opt.Cwd
	if cwd == "" || cwd[0] != '/' {
		cwd = "" // unknown: relative paths become opaque
	}
	opt.Glob, opt.Source = countGlob(opt.Glob), countSource(opt.Source)
	a.opt, a.eff, a.cwd = opt, eff, cwd
}

// release clears what one analysis left, keeping the capacity of the
// scratch slices.
func (a *analyzer) release() {
	clear(a.vars)
	clear(a.funcs)
	clear(a.fnv)
	clear(a.procs)
	clear(a.wsrc)
	clear(a.calls[:a.ncall])
	clear(a.wslab[:a.nword])
	clear(a.pathIdx)
	a.fast.reset()
	*a = analyzer{
		parser: a.parser,
		vars:   a.vars[:0], dirs: a.dirs[:0], funcs: a.funcs[:0], fnv: a.fnv[:0], fds: a.fds[:0],
		procs: a.procs[:0], wsrc: a.wsrc[:0], downloaded: a.downloaded[:0],
		calls: a.calls, maps: a.maps, bufs: a.bufs, wslab: a.wslab, pathIdx: a.pathIdx,
		fast: a.fast,
	}
}

// malformed names, without quoting the input, a parse error bash refuses
// as well: the command ends inside a quote, bracket or block, a
// redirection has no target (a "<placeholder>" left in), or a bracket
// stands where an argument belongs. Other errors may be gaps of the
// parser where bash would run the command: they stay merely opaque. An
// unclosed here-document is one (bash runs it up to the end of input).
func malformed(err error) (string, bool) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return "", false
	}
	at := fmt.Sprintf(" (line %d, column %d)", pe.Pos.Line(), pe.Pos.Col())
	switch {
	case strings.HasPrefix(pe.Text, "unclosed here-document"):
		return "", false
	case strings.HasPrefix(pe.Text, "reached EOF without closing quote"):
		return "a quote is never closed" + at, true
	case strings.HasSuffix(pe.Text, "must be followed by a word"):
		return "a redirection has no target, as a <placeholder> left in the command" + at, true
	case strings.HasPrefix(pe.Text, "a command can only contain words and redirects"):
		return "a bracket stands where an argument belongs" + at, true
	case pe.Incomplete:
		return "a bracket or block is never closed" + at, true
	}
	return "", false
}

// shellCode parses and walks code as shell at the current depth, with in
// as its standard input. why, when set, is the reason the code runs
// ("decoded"), only used for details.
func (a *analyzer) shellCode(code string, in *stream, why string) stream {
	if len(code) > a.opt.MaxBytes {
		a.tagf(nil, TagLimitExceeded, "bytes")
		return stream{}
	}
	if syntaxNesting(code, MaxSyntaxNesting) > MaxSyntaxNesting {
		a.tagf(nil, TagLimitExceeded, "nesting")
		return stream{}
	}
	if f, ok := fastParse(code, &a.fast); ok {
		return a.stmts(f.Stmts, in)
	}
	a.rd.Reset(code)
	f, err := a.parser.Parse(&a.rd, "")
	if err != nil {
		detail := "parse error"
		if why != "" {
			detail = why + " code: parse error"
		}
		a.tagf(nil, TagOpaque, detail)
		if a.depth == 0 {
			if what, ok := malformed(err); ok {
				a.tagf(nil, TagMalformed, what)
			}
		}
		if f == nil {
			return stream{}
		}
		// Still walk what parsed: effects of a valid prefix are real.
	}
	return a.stmts(f.Stmts, in)
}
