package shell

import (
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
	Lookup   func(name string) *Program // knowledge base (default: Lookup)
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

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Analyze statically analyses a bash command and returns its effects. It
// never panics and never fails: what it cannot parse or resolve is
// recorded as TagOpaque, and a bound that was hit as TagLimitExceeded.
func Analyze(cmd string, opt Options) (eff *Effects) {
	eff = &Effects{}
	loadNames()
	a := newAnalyzer(eff, opt)
	defer func() {
		if r := recover(); r != nil {
			// Fail closed: an analyser bug must never look like "no effects".
			a.tagf(nil, TagOpaque, "internal error")
		}
		parserPool.Put(a.parser)
	}()
	if len(cmd) > a.opt.MaxBytes {
		a.tagf(nil, TagLimitExceeded, "bytes")
		return eff
	}
	a.shellCode(cmd, nil, "")
	return eff
}

func newAnalyzer(eff *Effects, opt Options) *analyzer {
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
		opt.Lookup = Lookup
	}
	cwd := opt.Cwd
	if cwd == "" || cwd[0] != '/' {
		cwd = "" // unknown: relative paths become opaque
	}
	return &analyzer{
		opt:    opt,
		eff:    eff,
		cwd:    cwd,
		parser: parserPool.Get().(*syntax.Parser),
	}
}

// shellCode parses and walks code as shell at the current depth, with in
// as its standard input. why, when set, is the reason the code runs
// ("decoded"), only used for details.
func (a *analyzer) shellCode(code string, in *stream, why string) stream {
	if len(code) > a.opt.MaxBytes {
		a.tagf(nil, TagLimitExceeded, "bytes")
		return stream{}
	}
	f, err := a.parser.Parse(strings.NewReader(code), "")
	if err != nil {
		detail := "parse error"
		if why != "" {
			detail = why + " code: parse error"
		}
		a.tagf(nil, TagOpaque, detail)
		if f == nil {
			return stream{}
		}
		// Still walk what parsed: effects of a valid prefix are real.
	}
	return a.stmts(f.Stmts, in)
}
