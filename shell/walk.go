package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// analyzer holds the state of one analysis.
type analyzer struct {
	opt    Options
	eff    *Effects
	parser *syntax.Parser

	cwd   string     // current directory; "" when unknown
	dirs  []string   // pushd stack
	vars  []variable // assignments, newest last (scopes truncate)
	funcs []funcDef  // defined functions
	fds   []netFD    // file descriptors opened on network sockets (exec 5<>/dev/tcp/...)
	procs []stream   // process substitution contents, by Word.proc-1
	wsrc  []source   // data sources met while resolving the words of the current command

	downloaded []string // paths written with data fetched from the network

	depth int  // nesting depth of the code being walked
	nodes int  // work done
	stop  bool // a bound was hit: stop walking

	globRec bool   // shopt globstar/dotglob or GLOBIGNORE: globs have find semantics
	display string // remote X display host set through DISPLAY ("" when local or unset)

	// Scratch kept across analyses (alloc.go).
	rd      strings.Reader
	calls   []Call               // Call slab; calls[:ncall] are in use
	ncall   int                  //
	maps    []map[string]Word    // free flag maps
	bufs    [][]byte             // free word-building buffers
	strs    []string             // arena for Exec.Args (owned by the Effects: not recycled)
	wslab   []Word               // slab for Positional words
	nword   int                  //
	fnDef   string               // the function whose body is being walked ("" at top level)
	fnStack []string             // functions being walked for a call, innermost last
	last    lastCmd              // the last simple command run (for redirect judgements)
	pathIdx map[PathUse]struct{} // eff.Paths as a set, once it is long (seenPath)
	fast    fastArena            // nodes of fast parses (fastparse.go)
}

// variable is one shell variable assignment.
type variable struct {
	name string
	w    Word
	srcs []source
}

// source is where data came from (see Flow).
type source struct {
	kind SourceKind
	name string
	// dump marks the output of a whole-environment dump ($(env)), names
	// the names of every variable ($(compgen -e)): a variable holding
	// either still holds what a direct dump prints.
	dump, names bool
}

// netFD is a file descriptor bound to a network socket.
type netFD struct {
	fd   string
	host string
}

// lastCmd describes the most recent simple command.
type lastCmd struct {
	name  string
	prog  *Program
	shell bool // a shell or interpreter reading code from stdin
}

// stream is what flows through a pipe: the standard output of a command
// or the standard input of the next.
type stream struct {
	text     string   // content when known
	known    bool     // text is the full content
	piped    bool     // something feeds it (false: terminal, nothing)
	net      bool     // carries data fetched from the network
	decoded  bool     // produced by decoding or deobfuscation
	layer    string   // the last decoding layer ("base64", "rot13", ...)
	srcs     []source // where the data comes from
	from     string   // the program that produced it
	shell    bool     // output of an interactive shell (reverse shell pipes)
	envDump  bool     // carries the value of every environment variable (env, set, export -p)
	envNames bool     // carries the names of every environment variable (env | cut -d= -f1)
	netHost  string   // the host the data came from or goes to

	// Shape of unknown text (shape.go): a list of paths, one per line,
	// each in one of the item sets (find, ls, grep -l); or a token.
	items    []Word
	single   bool    // at most one line (head -n 1)
	findCall *Call   // find's output, described on demand (streamItems)
	tok      tokKind // the text is a token (uname -r, wc -l, date +%F)
	// prog: the text is where this program is found, "DIR/prog" (which
	// prog, command -v prog, type -P prog).
	prog string
}

// tick counts work; it reports false once the node bound is hit.
func (a *analyzer) tick() bool {
	if a.stop {
		return false
	}
	a.nodes++
	if a.nodes > a.opt.MaxNodes {
		a.stop = true
		a.tagf(nil, TagLimitExceeded, "nodes")
		return false
	}
	return true
}

// stmts walks a statement list; the output is the concatenation of the
// outputs of its statements.
func (a *analyzer) stmts(list []*syntax.Stmt, in *stream) stream {
	var out stream
	for i, s := range list {
		if s == nil || a.stop {
			continue
		}
		o := a.stmt(s, in)
		if i == 0 {
			out = o
			continue
		}
		out = joinStreams(out, o)
	}
	return out
}

// joinStreams concatenates two outputs (a; b).
func joinStreams(x, y stream) stream {
	if !x.piped {
		return y
	}
	if !y.piped {
		return x
	}
	out := stream{
		piped:    true,
		known:    x.known && y.known,
		net:      x.net || y.net,
		decoded:  x.decoded || y.decoded,
		layer:    x.layer + y.layer,
		shell:    x.shell || y.shell,
		envDump:  x.envDump || y.envDump,
		envNames: x.envNames || y.envNames,
		from:     x.from,
		netHost:  x.netHost + y.netHost,
	}
	if out.known && len(x.text)+len(y.text) <= maxDecoded {
		out.text = x.text + y.text
	} else {
		out.known = false
	}
	out.srcs = append(append(out.srcs, x.srcs...), y.srcs...)
	return out
}

// stmt walks one statement with its redirections.
func (a *analyzer) stmt(s *syntax.Stmt, in *stream) stream {
	if !a.tick() {
		return stream{}
	}
	var rd redirs
	if len(s.Redirs) > 0 {
		in = a.redirsIn(s.Redirs, in, &rd)
	}
	a.last = lastCmd{}
	out := a.command(s.Cmd, in)
	if len(s.Redirs) > 0 {
		out = a.redirsOut(&rd, out)
	}
	return out
}

// command walks one command of any kind.
func (a *analyzer) command(cmd syntax.Command, in *stream) stream {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return a.callExpr(c, in)
	case *syntax.BinaryCmd:
		return a.binary(c, in)
	case *syntax.Subshell:
		return a.scoped(c.Stmts, in)
	case *syntax.Block:
		return a.stmts(c.Stmts, in)
	case *syntax.IfClause:
		return a.ifClause(c, in)
	case *syntax.WhileClause:
		a.stmts(c.Cond, in)
		return a.stmts(c.Do, in)
	case *syntax.ForClause:
		return a.forClause(c, in)
	case *syntax.CaseClause:
		return a.caseClause(c, in)
	case *syntax.FuncDecl:
		a.funcDecl(c)
	case *syntax.ArithmCmd:
		a.arithm(c.X)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			a.arithm(x)
		}
	case *syntax.TestClause:
		a.test(c.X)
	case *syntax.DeclClause:
		return a.declClause(c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return a.stmt(c.Stmt, in)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			return a.stmt(c.Stmt, in)
		}
	case nil:
	default:
		a.tagf(nil, TagOpaque, "unsupported construct")
	}
	return stream{}
}

// scoped walks statements in a subshell: directory and variable changes
// do not outlive it.
func (a *analyzer) scoped(list []*syntax.Stmt, in *stream) stream {
	cwd, nv, nd := a.cwd, len(a.vars), len(a.dirs)
	out := a.stmts(list, in)
	a.cwd, a.vars, a.dirs = cwd, a.vars[:nv], a.dirs[:nd]
	return out
}

func (a *analyzer) binary(b *syntax.BinaryCmd, in *stream) stream {
	switch b.Op {
	case syntax.Pipe, syntax.PipeAll:
		return a.pipeline(b, in)
	}
	x := a.stmtOrNil(b.X, in)
	y := a.stmtOrNil(b.Y, in)
	return joinStreams(x, y)
}

func (a *analyzer) stmtOrNil(s *syntax.Stmt, in *stream) stream {
	if s == nil {
		return stream{}
	}
	return a.stmt(s, in)
}

func (a *analyzer) ifClause(c *syntax.IfClause, in *stream) stream {
	var out stream
	for ; c != nil && !a.stop; c = c.Else {
		a.stmts(c.Cond, in)
		out = joinStreams(out, a.stmts(c.Then, in))
	}
	return out
}

// forClause walks a loop body; over a short list of known words it walks
// the body once per word, otherwise once with the variable unknown.
func (a *analyzer) forClause(c *syntax.ForClause, in *stream) stream {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		if cs, ok := c.Loop.(*syntax.CStyleLoop); ok {
			a.arithm(cs.Init)
			a.arithm(cs.Cond)
			a.arithm(cs.Post)
		}
		return a.stmts(c.Do, in)
	}
	var items []Word
	mark := len(a.wsrc)
	for _, w := range wi.Items {
		items = a.words(items, w)
	}
	// The loop variable holds a piece of the items and carries their
	// data sources: for k in $(env) walks the environment.
	srcs := a.wsrcFrom(mark)
	name := ""
	if wi.Name != nil {
		name = wi.Name.Value
	}
	if len(items) == 0 || len(items) > 8 {
		a.setVar(name, tokenSet(items), srcs)
		return a.stmts(c.Do, in)
	}
	var out stream
	for _, it := range items {
		if it.Known && it.Glob {
			it.flags |= wSet // the variable stands for each match
		}
		a.setVar(name, it, srcs)
		out = joinStreams(out, a.stmts(c.Do, in))
	}
	return out
}

// tokenSet is the loop variable over many words: * within one path
// segment when every word is a known token (no "/", not "." or "..",
// no leading dot), else unknown.
func tokenSet(items []Word) Word {
	if len(items) == 0 {
		return Word{}
	}
	for _, it := range items {
		v := it.Value
		if !it.Known || it.Glob || v == "" || v[0] == '.' || strings.IndexByte(v, '/') >= 0 {
			return Word{}
		}
	}
	return Word{pat: "*", flags: wSet}
}

func (a *analyzer) caseClause(c *syntax.CaseClause, in *stream) stream {
	if c.Word != nil {
		a.word1(c.Word)
	}
	var out stream
	for _, it := range c.Items {
		for _, p := range it.Patterns {
			a.word1(p)
		}
		out = joinStreams(out, a.stmts(it.Stmts, in))
	}
	return out
}

// funcDecl analyses a function body where it is defined; calls of the
// name later are known. A body that calls its own name in a pipeline or in
// the background is a fork bomb.
func (a *analyzer) funcDecl(f *syntax.FuncDecl) {
	if f.Name == nil || f.Body == nil {
		return
	}
	name := f.Name.Value
	a.funcs = append(a.funcs, funcDef{name, f.Body})
	if selfSpawn(f.Body, name) {
		a.tagf(nil, TagForkBomb, name)
	}
	prev := a.fnDef
	a.fnDef = name
	cwd, nv := a.cwd, len(a.vars)
	a.stmt(f.Body, nil)
	a.cwd, a.vars = cwd, a.vars[:nv]
	a.fnDef = prev
}

// funcDef is a function defined in the command.
type funcDef struct {
	name string
	body *syntax.Stmt
}

// isFunc reports whether name is a function defined earlier.
func (a *analyzer) isFunc(name string) bool {
	_, ok := a.funcBody(name)
	return ok
}

// funcBody returns the body of the latest definition of name.
func (a *analyzer) funcBody(name string) (*syntax.Stmt, bool) {
	for i := len(a.funcs) - 1; i >= 0; i-- {
		if a.funcs[i].name == name {
			return a.funcs[i].body, true
		}
	}
	return nil, false
}

// callFunc walks a function's body again for one call, with the call's
// arguments as $1, $2, ...: what "f /etc/shadow" does depends on them.
// The body was walked once at its definition with unknown arguments; a
// function already being walked (recursion) is not walked again.
func (a *analyzer) callFunc(name string, argv []Word, in *stream) stream {
	body, _ := a.funcBody(name)
	for _, c := range a.fnStack {
		if c == name {
			return stream{piped: true, from: name}
		}
	}
	if body == nil || !a.enter() {
		return stream{piped: true, from: name}
	}
	cwd, nv, prev := a.cwd, len(a.vars), a.fnDef
	a.fnStack = append(a.fnStack, name)
	a.fnDef = name
	a.setParams(argv)
	out := a.stmt(body, in)
	a.cwd, a.vars, a.fnDef = cwd, a.vars[:nv], prev
	a.fnStack = a.fnStack[:len(a.fnStack)-1]
	a.depth--
	if !out.piped {
		out = stream{piped: true, from: name}
	}
	return out
}

// selfSpawn reports whether body calls name inside a pipeline or in the
// background.
func selfSpawn(body *syntax.Stmt, name string) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && (callsName(x.X, name) || callsName(x.Y, name)) {
				found = true
			}
		case *syntax.Stmt:
			if x.Background && callsName(x, name) {
				found = true
			}
		}
		return !found
	})
	return found
}

// callsName reports whether the statement is (or contains) a call of name.
func callsName(s *syntax.Stmt, name string) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if lit := ce.Args[0].Lit(); lit == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// arithm walks an arithmetic expression for the substitutions it holds.
func (a *analyzer) arithm(x syntax.ArithmExpr) {
	switch e := x.(type) {
	case *syntax.BinaryArithm:
		a.arithm(e.X)
		a.arithm(e.Y)
	case *syntax.UnaryArithm:
		a.arithm(e.X)
	case *syntax.ParenArithm:
		a.arithm(e.X)
	case *syntax.Word:
		a.word1(e)
	}
}

// test walks a [[ ]] expression for the substitutions it holds.
func (a *analyzer) test(x syntax.TestExpr) {
	switch e := x.(type) {
	case *syntax.BinaryTest:
		a.test(e.X)
		a.test(e.Y)
	case *syntax.UnaryTest:
		a.test(e.X)
	case *syntax.ParenTest:
		a.test(e.X)
	case *syntax.Word:
		a.word1(e)
	}
}
