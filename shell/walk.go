package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// analyzer holds the state of one analysis.
type analyzer struct {
	opt    Options
	eff    *Effects
	parser *syntax.Parser

	cwd   string     // current directory; "" when unknown
	piece bool       // recording a path a piece of a split name gives (PathUse.Split)
	dirs  []string   // pushd stack
	vars  []variable // assignments, newest last (scopes truncate)
	funcs []funcDef  // every function definition walked (uncalled)
	fnv   []fnState  // the definitions in effect, newest last (scoped as vars)
	fds   []netFD    // file descriptors opened on network sockets (exec 5<>/dev/tcp/...)
	procs []stream   // process substitution contents, by Word.proc-1
	wsrc  []source   // data sources met while resolving the words of the current command

	downloaded []string // paths written with data fetched from the network

	depth int  // nesting depth of the code being walked
	nodes int  // work done
	stop  bool // a bound was hit: stop walking

	globRec bool // shopt globstar/dotglob or GLOBIGNORE: globs have find semantics
	gitEnv  bool // GIT_DIR, GIT_WORK_TREE or GIT_CONFIG* assigned somewhere in the command (gitEnvVar)
	tmpEnv  bool // TMPDIR assigned or unset somewhere in the command (tempname.go)

	// Control flow (flowstate.go).
	dead        bool         // the path walked ended the shell (exit): nothing after it runs on it
	failSet     bool         // the statement just walked was a cd that may fail,
	failCwd     string       // leaving this directory when it does
	lastpipe    bool         // shopt lastpipe may be on: a pipeline's last stage runs in this shell
	volatile    []string     // variables a trap or alias may change before any command
	cwdVolatile bool         // a trap or alias may change the directory before any command
	havocAll    bool         // code the walk cannot see may have assigned any variable (source, a nameref)
	readonly    []string     // variables that may be readonly: an assignment to one may fail
	anyReadonly bool         // readonly with a name known only at run time: any variable may be
	hashed      [][2]string  // hash -p PATH NAME: NAME runs PATH
	aliases     []aliasState // aliases in effect, newest last (scoped as vars)
	expanding   []string     // aliases being expanded (bash does not expand one inside itself)
	noFunc      bool         // the next name runs as a builtin or program (command, builtin, exec)
	altVar      string       // a variable with alternative values met in the words of the current call
	display     string       // remote X display host set through DISPLAY ("" when local or unset)

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
	// alts, when w is unknown, are the values it may hold, all of them:
	// the paths that reached here left one of these (flowstate.go).
	alts []Word
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
	relay    bool     // the program passes on what it reads (inline code that prints the environment)
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
		if i > 0 {
			a.cdMayHaveFailed()
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
	if a.cwdVolatile {
		a.cwd = "" // a trap may have moved it
	}
	a.failSet = false
	var m flowMark
	skip := !s.Background && redirMayFail(s)
	if s.Background || skip {
		m = a.mark() // cmd &: runs in a subshell, its state dies with it
	}
	out := a.command(s.Cmd, in)
	if len(s.Redirs) > 0 {
		out = a.redirsOut(&rd, out)
	}
	switch {
	case s.Background:
		a.rewind(m)
		a.failSet = false
	case skip:
		// cmd < file: where the file cannot be opened (missing, a
		// directory that is not there, no permission) bash does not run
		// the command.
		a.merge(m, true, a.endAll(nil, m)...)
	}
	if s.Negated {
		a.cdMayHaveFailed() // ! cd x: its success is cd's failure
	}
	return out
}

// redirMayFail reports whether a statement that changes the shell's state
// has a redirection that may fail (a file other than /dev/null): the
// command is then skipped. A command of assignments alone still assigns.
func redirMayFail(s *syntax.Stmt) bool {
	if ce, ok := s.Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 0 {
		return false
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if r.Word == nil || r.Word.Lit() != "/dev/null" {
				return true
			}
		}
	}
	return false
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
		return a.loop(func() stream {
			a.stmts(c.Cond, in)
			a.failSet = false
			return a.stmts(c.Do, in)
		})
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
			if w, ok := x.(*syntax.Word); ok && w.Lit() == "" {
				// let "x=1": an expression in quotes, not parsed here,
				// may assign any variable.
				a.havocAll = true
			}
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
		name := "COPROC"
		if c.Name != nil && c.Name.Lit() != "" {
			name = c.Name.Lit()
		}
		a.setVar(name, Word{}, nil) // its descriptors
		a.setVar(name+"_PID", Word{}, nil)
		if c.Stmt != nil {
			return a.scoped([]*syntax.Stmt{c.Stmt}, in)
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
	m := a.mark()
	out := a.stmts(list, in)
	a.rewind(m)
	a.failSet = false
	return out
}

func (a *analyzer) binary(b *syntax.BinaryCmd, in *stream) stream {
	switch b.Op {
	case syntax.Pipe, syntax.PipeAll:
		return a.pipeline(b, in)
	}
	var sbuf [8]*syntax.Stmt
	chain := flatChain(flatChain(sbuf[:0], b.X, b.Op), b.Y, b.Op)
	m := a.mark()
	var out stream
	var ends []pathEnd
	for i, s := range chain {
		out = joinStreams(out, a.stmtOrNil(s, in))
		ok := a.capture(m)
		fail := a.failEnd(ok)
		a.failSet = false
		switch {
		case b.Op == syntax.AndStmt:
			// A && B && C: each runs once the one before succeeded; a
			// failure anywhere ends the list there.
			ends = append(ends, fail)
			if i == len(chain)-1 {
				ends = append(ends, ok)
			}
		default:
			// A || B || C: each runs once the one before failed.
			ends = append(ends, ok)
			if i == len(chain)-1 {
				ends = append(ends, fail)
			} else {
				a.cwd = fail.cwd
			}
		}
	}
	a.merge(m, false, ends...)
	return out
}

// flatChain appends the operands of a list of one operator (A && B && C)
// to dst.
func flatChain(dst []*syntax.Stmt, s *syntax.Stmt, op syntax.BinCmdOperator) []*syntax.Stmt {
	if s == nil {
		return dst
	}
	if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && !s.Background && !s.Negated && bc.Op == op {
		return flatChain(flatChain(dst, bc.X, op), bc.Y, op)
	}
	return append(dst, s)
}

func (a *analyzer) stmtOrNil(s *syntax.Stmt, in *stream) stream {
	if s == nil {
		return stream{}
	}
	return a.stmt(s, in)
}

func (a *analyzer) ifClause(c *syntax.IfClause, in *stream) stream {
	if len(c.Cond) == 0 { // else
		return a.stmts(c.Then, in)
	}
	a.stmts(c.Cond, in)
	m := a.mark()
	failCwd := a.failCwdOr(a.cwd)
	a.failSet = false
	k := constCond(c.Cond)
	out := a.stmts(c.Then, in)
	then := a.endAll(nil, m)
	a.cwd = failCwd
	if c.Else != nil && !a.stop {
		out = joinStreams(out, a.ifClause(c.Else, in))
	}
	switch k {
	case condTrue: // if true: the other branch is walked for its effects only
		a.merge(m, false, then...)
	case condFalse:
		a.merge(m, false, a.endAll(nil, m)...)
	default:
		a.merge(m, false, a.endAll(then, m)...)
	}
	return out
}

// Constant conditions: true and : always succeed, false always fails.
const (
	condUnknown = iota
	condTrue
	condFalse
)

// constCond tells whether a condition list is the constant true or false.
func constCond(list []*syntax.Stmt) int {
	if len(list) != 1 || list[0] == nil || len(list[0].Redirs) > 0 || list[0].Background {
		return condUnknown
	}
	ce, ok := list[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) != 1 {
		return condUnknown
	}
	k := condUnknown
	switch ce.Args[0].Lit() {
	case "true", ":":
		k = condTrue
	case "false":
		k = condFalse
	}
	if list[0].Negated && k != condUnknown {
		k = condTrue + condFalse - k
	}
	return k
}

// forClause walks a loop body; over a short list of known words it walks
// the body once per word, otherwise once with the variable unknown.
func (a *analyzer) forClause(c *syntax.ForClause, in *stream) stream {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		cs, _ := c.Loop.(*syntax.CStyleLoop)
		if cs != nil {
			a.arithm(cs.Init)
		}
		return a.loop(func() stream {
			if cs != nil {
				a.arithm(cs.Cond)
				a.arithm(cs.Post)
			}
			return a.stmts(c.Do, in)
		})
	}
	var items []Word
	mark := len(a.wsrc)
	for _, w := range wi.Items {
		items = a.words(items, w)
	}
	items = a.expandGlobs(items) // globexpand.go
	// The loop variable holds a piece of the items and carries their
	// data sources: for k in $(env) walks the environment.
	srcs := a.wsrcFrom(mark)
	name := ""
	if wi.Name != nil {
		name = wi.Name.Value
	}
	exact := len(items) > 0 && len(items) <= 8 && !c.Select
	for _, it := range items {
		exact = exact && it.Known && !it.Glob && it.flags&wMany == 0
	}
	if !exact {
		// Any number of rounds: a glob or a substitution may give any
		// number of words (select: as many rounds as the user picks).
		v := tokenSet(items)
		if len(items) == 1 {
			v = items[0] // a glob, a find set, a token: each word it gives
			if v.Known && v.Glob {
				v.flags |= wSet // the variable stands for each match
			}
		}
		return a.loop(func() stream {
			a.setVar(name, v, srcs)
			return a.stmts(c.Do, in)
		})
	}
	// One round per word, in order: exact, unless a round may end early
	// (break, continue): the next then starts from any state it left.
	early := jumps(c)
	m := a.mark()
	var out stream
	for i, it := range items {
		if i > 0 {
			a.cdMayHaveFailed() // the last round's last statement
		}
		a.setVar(name, it, srcs)
		out = joinStreams(out, a.stmts(c.Do, in))
		if early {
			a.havoc(m, a.capture(m))
		}
	}
	return out
}

// loop walks a loop that runs its body any number of times. The first
// walk sees the state before the loop; if the body changed it, a second
// walk sees every variable the body assigns, and the directory if it
// moved, as unknown (a later round sees what an earlier one left), and so
// does what follows the loop.
func (a *analyzer) loop(round func() stream) stream {
	m := a.mark()
	out := round()
	e := a.capture(m)
	if !e.changed(m) {
		a.rewind(m) // it may run no round: an exit in it ends nothing
		return out
	}
	a.havoc(m, e)
	n := len(a.eff.Execs)
	out = joinStreams(out, round())
	a.havoc(m, a.capture(m))
	// The second walk runs the same programs: keep those it saw anew.
	a.eff.Execs = append(a.eff.Execs[:n], slices.DeleteFunc(a.eff.Execs[n:], func(x Exec) bool {
		return slices.ContainsFunc(a.eff.Execs[:n], func(y Exec) bool {
			return x.Name == y.Name && x.Path == y.Path && x.Depth == y.Depth && slices.Equal(x.Args, y.Args)
		})
	})...)
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
	m := a.mark()
	var ends, carry []pathEnd
	for _, it := range c.Items {
		if len(carry) > 0 {
			// After ;& or ;;& an item may start where an earlier one
			// ended (or, its pattern not matching, where the case began).
			a.merge(m, true, carry...)
		}
		for _, p := range it.Patterns {
			a.filter(a.word1(p))
		}
		out = joinStreams(out, a.stmts(it.Stmts, in))
		n := len(ends)
		ends = a.endAll(ends, m)
		if it.Op != syntax.Break {
			carry = append(carry, ends[n:]...)
		}
	}
	a.merge(m, true, ends...) // no pattern may match
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
	a.funcs = append(a.funcs, funcDef{name: name, body: f.Body})
	a.fnv = append(a.fnv, fnState{name: name, defs: []*syntax.Stmt{f.Body}})
	if selfSpawn(f.Body, name) {
		a.tagf(nil, TagForkBomb, name)
	}
}

// uncalled walks, once the command is walked, the body of each function
// no call of which was seen, with its arguments unknown: a trap, an
// exported function or a handler bash calls itself may still run it.
// (Walking every body where it is defined would judge a wrapper such as
// rm() { command rm -i "$@"; } with unknown arguments even when every
// call of it is known.)
func (a *analyzer) uncalled() {
	for i := 0; i < len(a.funcs) && !a.stop; i++ {
		f := a.funcs[i]
		if f.called || slices.ContainsFunc(a.funcs[:i], func(g funcDef) bool { return g.body == f.body }) {
			continue
		}
		m, prev := a.mark(), a.fnDef
		a.fnDef, a.cwd = f.name, "" // it may run anywhere, any time
		a.stmt(f.body, nil)
		a.rewind(m)
		a.fnDef = prev
	}
}

// funcDef is a function defined in the command; called is set once a
// call of it was walked.
type funcDef struct {
	name   string
	body   *syntax.Stmt
	called bool
}

// isFunc reports whether name may be a function defined earlier.
func (a *analyzer) isFunc(name string) bool {
	bodies, _ := a.funcWays(name)
	return len(bodies) > 0
}

// callFunc walks a function's body for one call, with the call's
// arguments as $1, $2, ...: what "f /etc/shadow" does depends on them. A
// function already being walked (recursion) is not walked again; one no
// call reaches is walked at the end with unknown arguments (uncalled).
func (a *analyzer) callFunc(name string, body *syntax.Stmt, argv []Word, in *stream) stream {
	for _, c := range a.fnStack {
		if c == name {
			return stream{piped: true, from: name}
		}
	}
	if body == nil || !a.enter() {
		return stream{piped: true, from: name}
	}
	for i := range a.funcs {
		if a.funcs[i].body == body {
			a.funcs[i].called = true
		}
	}
	m, prev := a.mark(), a.fnDef
	a.fnStack = append(a.fnStack, name)
	a.fnDef = name
	a.setParams(argv)
	np := len(a.vars)
	out := a.stmt(body, in)
	a.fnDef = prev
	a.fnStack = a.fnStack[:len(a.fnStack)-1]
	a.depth--
	// A function runs in this shell: what it assigns, other than its
	// parameters and locals, and where it cd'd, outlive the call. A body
	// that may return early leaves any state it passed through.
	e := a.capture(m)
	locals, later := localNames(body, a.mayAssign)
	e.vars = slices.DeleteFunc(slices.Clone(a.vars[np:]), func(v variable) bool {
		// A local dies with the call, unless declare -g or an earlier
		// assignment reached the caller's of that name.
		return isParam(v.name) || slices.Contains(locals, v.name) && !slices.Contains(later, v.name)
	})
	if jumps(body) || len(later) > 0 {
		a.havoc(m, e)
		a.dead = m.dead
	} else {
		a.rewind(m)
		a.vars = append(a.vars, e.vars...) // as the body left them (alternatives, readonly joins)
		a.cwd, a.dirs, a.dead = e.cwd, append(a.dirs[:0], e.dirs...), e.dead
		a.fnv = append(a.fnv, e.fns...) // functions it defined are global
	}
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
		switch e.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
			syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			a.arithTarget(e.X)
		}
	case *syntax.UnaryArithm:
		a.arithm(e.X)
		if e.Op == syntax.Inc || e.Op == syntax.Dec {
			a.arithTarget(e.X)
		}
	case *syntax.ParenArithm:
		a.arithm(e.X)
	case *syntax.Word:
		a.filter(a.word1(e))
	}
}

// arithTarget makes the variable an arithmetic assignment writes unknown
// (a number; x[$i] or a name built at run time may be any variable).
func (a *analyzer) arithTarget(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok {
		if name := w.Lit(); name != "" && validName(name) {
			a.setVar(name, Word{}, nil)
			return
		}
	}
	a.havocAll = true
}

// validName reports whether s is a shell variable name.
func validName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
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
		a.filter(a.word1(e))
	}
}

// maxFilters bounds Effects.filters.
const maxFilters = 64

// filter records a literal a case pattern or a [[ ]] test compares with:
// in a loop over a process listing it selects the processes a kill
// reaches (KillTargets).
func (a *analyzer) filter(w Word) {
	if w.Value != "" && len(a.eff.filters) < maxFilters {
		a.eff.filters = append(a.eff.filters, w.Value)
	}
}
