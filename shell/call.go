package shell

import "github.com/parallax/parallax/action"

// Word is one argument after static resolution.
type Word struct {
	Value string // resolved text; when !Known, what could be resolved
	Known bool   // fully resolved statically
	Glob  bool   // holds unquoted glob metacharacters (* ? [)

	pat   string     // glob pattern: quoted metacharacters escaped, unknown parts as *
	flags wordFlags  // how the word was built
	proc  int        // process substitution: index+1 in analyzer.procs
	sel   *Selection // a set word's selection (find's expression), nil: everything
}

// wordFlags say how a word was built.
type wordFlags uint16

const (
	wObf     wordFlags = 1 << iota // letters split by quotes, escapes, $IFS, ANSI-C escapes
	wDecoded                       // holds decoded data
	wNet                           // holds data fetched from the network
	wSubst                         // holds command substitution output
	// wSet: the word is not fully known, but its pattern is a sound
	// superset of every value it can take (a find set, a token such as
	// $(uname -r) as * within one path segment). Paths named by it are
	// recorded as globs, not as opaque.
	wSet
	wRec  // the pattern has find semantics (see PathUse.Recursive)
	wMany // unquoted, the value may split into several fields (seq output)
	// wProg: the word is exactly where PATH finds a program, "$(which
	// NAME)" (pattern "*/NAME"), with nothing before or after it.
	wProg
	// wOwnPid: every unknown part of the word is the PID of a process
	// this command started ($!, or a variable that holds it), so a signal
	// sent to it reaches the command's own job (killtarget.go).
	wOwnPid
	// wSplit: the word is an item of a listing that reached it through a
	// channel splitting names on blanks or newlines (split.go).
	wSplit
	// wPiece: the word is a piece a split name can produce (split.go);
	// the paths it names are recorded with PathUse.Split.
	wPiece
)

// pattern returns the word as a glob pattern: unknown parts are *.
func (w Word) pattern() string {
	if w.pat != "" {
		return w.pat
	}
	if w.Known {
		if w.Glob {
			return w.Value
		}
		return escapeGlob(w.Value)
	}
	if w.Value == "" {
		return ""
	}
	return escapeGlob(w.Value) + "*"
}

// Call is one simple command being analysed, as handed to a Program's
// Check function. The core fills the fields; the methods record effects.
type Call struct {
	Name       string          // resolved program base name
	Args       []Word          // argv[1:], as resolved
	Positional []Word          // positional arguments left after flag parsing (after the subcommand, if any)
	Flags      map[string]Word // flags seen, with their value (Known/"" for booleans)
	Cwd        string          // working directory (absolute)
	Home       string
	Depth      int

	an *analyzer // the core's state; see walk.go

	prog  *Program // the program (or subcommand) being applied
	stdin *stream  // its standard input
	code  bool     // code was given as an argument (stdin is data)
	// netCode: its inline code talks to the network, so what it reads
	// (files, the environment, its input) may be sent; relay: its code
	// prints what it reads of the environment.
	netCode, relay bool
	pmark          int // len(Effects.Paths) when the call started
	nmark          int // len(Effects.Network) when the call started
	smark          int // len(analyzer.wsrc) when the call started

	// Item sets (findset.go): what find's -delete removes, and the words
	// xargs appends for its input items (nil: unknown).
	delSet  []Word
	items   []Word
	runs    [][]Word // xargs -I: the command once per item set
	replace bool     // xargs -I/-i: nothing is appended
	itemsOK bool     // items holds the input items
}

// Flag reports whether any of the spellings was given, and its value.
func (c *Call) Flag(names ...string) (Word, bool) {
	for _, n := range names {
		if w, ok := c.Flags[n]; ok {
			return w, true
		}
	}
	return Word{}, false
}

// Abs resolves a word to an absolute, cleaned path against Cwd (with ~
// expanded). ok is false when the word is not statically known.
func (c *Call) Abs(w Word) (string, bool) { return c.an.abs(c, w) }

// Use records that the program touches the path named by w. Unknown
// words are recorded as opaque paths (TagOpaque), never dropped.
func (c *Call) Use(w Word, acc action.Access) { c.an.use(c, w, acc) }

// UsePath records an already absolute path.
func (c *Call) UsePath(p string, acc action.Access) { c.an.usePath(c, p, acc, false) }

// URL records a URL the program talks to (host and port parsed from it).
func (c *Call) URL(w Word, upload bool) { c.an.url(c, w, upload) }

// Host records a host the program talks to ("user@host", "host:port").
func (c *Call) Host(w Word, port string, upload, listen bool) { c.an.host(c, w, port, upload, listen) }

// Inserts records text an in-place edit of the file w may put in it
// (Effects.Written, Insert).
func (c *Call) Inserts(w Word, text string) {
	if !w.Known || w.Glob || text == "" {
		return
	}
	if p, ok := c.an.absPath(c.Cwd, w.Value); ok {
		c.an.written(WrittenText{Path: p, Text: text, Insert: true})
	}
}

// Tag records a fact.
func (c *Call) Tag(k TagKind, detail string) { c.an.tag(c, k, detail) }

// Run analyses argv as a nested command (wrappers: sudo, env, timeout,
// xargs, find -exec), one level deeper.
func (c *Call) Run(argv []Word) { c.an.run(c, argv) }

// RunShell analyses a string as shell code, one level deeper.
func (c *Call) RunShell(code Word) { c.an.runShell(c, code) }

// RunCode analyses inline code of another language (python -c, perl -e,
// awk programs): what it executes, reads, writes and connects to.
func (c *Call) RunCode(lang string, code Word) { c.an.runCode(c, lang, code) }
