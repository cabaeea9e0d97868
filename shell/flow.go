package shell

import (
	"github.com/parallax/parallax/action"
	"mvdan.cc/sh/v3/syntax"
)

// This file follows data: pipelines, the output of calls, flows into
// network programs, code fed to interpreters, nested commands.

// pipeline walks A | B | C, feeding each stage the previous output.
func (a *analyzer) pipeline(b *syntax.BinaryCmd, in *stream) stream {
	var sbuf [8]*syntax.Stmt
	stages := flatPipe(sbuf[:0], b.X)
	stages = flatPipe(stages, b.Y)
	cur := stream{}
	shellAt, netAt, listen := -1, -1, false
	for i, s := range stages {
		stIn := in
		if i > 0 {
			cur.piped = true
			stIn = &cur
		}
		nn := len(a.eff.Network)
		// Each stage runs in a subshell; with lastpipe the last one may
		// run in this shell.
		m := a.mark()
		out := a.stmt(s, stIn)
		if i == len(stages)-1 && a.lastpipe {
			if e := a.end(m); e.changed(m) {
				a.merge(m, true, e)
			}
		} else {
			a.rewind(m)
		}
		a.failSet = false
		if a.last.shell && shellAt < 0 {
			shellAt = i
		}
		if len(a.eff.Network) > nn || a.last.prog != nil && a.last.prog.Network {
			if shellAt >= 0 || netAt < 0 {
				netAt = i
			}
			for _, d := range a.eff.Network[nn:] {
				listen = listen || d.Listen
			}
		}
		if out.from == "" {
			out.from = a.last.name
		}
		cur = out
	}
	a.shellWiring(shellAt, netAt, listen)
	cur.piped = true
	return cur
}

// flatPipe appends the stages of a pipeline statement to dst.
func flatPipe(dst []*syntax.Stmt, s *syntax.Stmt) []*syntax.Stmt {
	if s == nil {
		return dst
	}
	if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && !s.Background && !s.Negated &&
		(bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
		return flatPipe(flatPipe(dst, bc.X), bc.Y)
	}
	return append(dst, s)
}

// shellWiring tags a shell whose output goes to a network program, or
// that is fed by a listening socket.
func (a *analyzer) shellWiring(shellAt, netAt int, listen bool) {
	if shellAt < 0 || netAt < 0 {
		return
	}
	switch {
	case netAt > shellAt && listen:
		a.tagf(nil, TagBindShell, "shell piped to a listening socket")
	case netAt > shellAt:
		a.tagf(nil, TagReverseShell, "shell piped to a network program")
	case listen:
		a.tagf(nil, TagBindShell, "listening socket piped to a shell")
	}
}

// finish completes a call of a known program: code on stdin, flows,
// output.
func (a *analyzer) finish(c *Call, in *stream) stream {
	p := c.prog
	a.last = lastCmd{name: c.Name, prog: p}
	if p.StdinCode && !c.code {
		a.last.shell = true
		if in != nil && in.piped {
			a.execStream(c, p.Lang, in)
		}
	}
	if p.Network || c.netCode {
		a.flows(c, in)
	}
	out := a.output(c, in)
	if p.Network || c.netCode {
		out.net = true
		out.netHost = a.callHost(c)
	}
	out.relay = c.relay
	out = a.transform(c, in, out)
	if c.Name == "printenv" {
		printenvOut(c, &out)
	}
	envDumpOut(c, in, &out)
	a.shape(c, in, &out)
	return out
}

// callHost is the first host the call talks to.
func (a *analyzer) callHost(c *Call) string {
	for _, d := range a.eff.Network[c.nmark:] {
		if d.Program == c.Name && d.Host != "" {
			return d.Host
		}
	}
	return ""
}

// flows records data moving into a network program: files it reads,
// values in its arguments, what is piped into it.
func (a *analyzer) flows(c *Call, in *stream) {
	host := a.callHost(c)
	add := func(s source) {
		a.addFlow(Flow{Kind: s.kind, Source: s.name, Program: c.Name, Host: host})
	}
	for _, u := range a.eff.Paths[c.pmark:] {
		if u.Access&action.AccessRead != 0 && u.Program == c.Name {
			add(source{kind: SourceFile, name: u.Path})
		}
	}
	if c.smark <= len(a.wsrc) {
		for _, s := range a.wsrc[c.smark:] {
			add(s)
		}
	}
	if in == nil || !in.piped {
		return
	}
	for _, s := range in.srcs {
		add(s)
	}
	if len(in.srcs) == 0 && !in.known && in.from != "" {
		add(source{kind: SourceCommand, name: in.from})
	}
}

// output is the default output of a call: what it read, passed on.
func (a *analyzer) output(c *Call, in *stream) stream {
	out := stream{piped: true, from: c.Name}
	var inSrcs []source
	if in != nil && in.piped {
		inSrcs = in.srcs
		out.net, out.decoded, out.layer = in.net, in.decoded, in.layer
	}
	n := 0
	for _, u := range a.eff.Paths[c.pmark:] {
		if u.Access&action.AccessRead != 0 && u.Program == c.Name {
			n++
		}
	}
	var ws []source
	if c.smark <= len(a.wsrc) {
		ws = a.wsrc[c.smark:]
	}
	if n == 0 && len(ws) == 0 {
		// Share the input's sources; clipped, so appends copy.
		out.srcs = inSrcs[:len(inSrcs):len(inSrcs)]
		return out
	}
	out.srcs = make([]source, 0, len(inSrcs)+n+len(ws))
	out.srcs = append(out.srcs, inSrcs...)
	for _, u := range a.eff.Paths[c.pmark:] {
		if u.Access&action.AccessRead != 0 && u.Program == c.Name {
			out.srcs = append(out.srcs, source{kind: SourceFile, name: u.Path})
			if a.isDownloaded(u.Path) {
				out.net = true
			}
		}
	}
	out.srcs = append(out.srcs, ws...)
	return out
}

// execStream runs data as code of lang: decoded or downloaded data that is
// executed is tagged, known text is analysed one level deeper.
func (a *analyzer) execStream(c *Call, lang string, s *stream) {
	if s.net {
		a.tagf(c, TagDownloadExec, "from "+s.from)
	}
	if s.decoded {
		a.tagf(c, TagDecodedExec, s.layer)
		a.tagf(c, TagObfuscation, s.layer)
	}
	if s.known {
		w := Word{Value: s.text, Known: true}
		if s.decoded {
			w.flags |= wDecoded
		}
		a.runCode(c, lang, w)
		return
	}
	if !s.net && !s.decoded {
		a.tagf(c, TagEval, "code from "+s.from)
	}
}

// enter goes one nesting level deeper; it reports false at the bound.
func (a *analyzer) enter() bool {
	if a.depth+1 > a.opt.MaxDepth {
		a.tagf(nil, TagLimitExceeded, "depth")
		return false
	}
	a.depth++
	return true
}

// run analyses argv as a nested command.
func (a *analyzer) run(c *Call, argv []Word) {
	if len(argv) == 0 || !a.enter() {
		return
	}
	defer func() { a.depth-- }()
	cwd := a.cwd
	a.cwd = c.Cwd
	switch {
	case c.Name == "xargs" && len(c.runs) > 0:
		for _, r := range c.runs {
			a.runArgv(r, c.stdin, c.smark)
		}
	case c.Name == "xargs" && c.itemsOK:
		a.runArgv(append(argv[:len(argv):len(argv)], c.items...), c.stdin, c.smark)
	case c.Name == "xargs" && c.replace:
		a.runArgv(argv, c.stdin, c.smark)
	case c.Name == "xargs" || c.Name == "parallel":
		a.runArgv(append(argv[:len(argv):len(argv)], Word{}), c.stdin, c.smark)
	default:
		a.runArgv(argv, c.stdin, c.smark)
	}
	a.cwd = cwd
}

// runShell analyses a string as shell code, one level deeper.
func (a *analyzer) runShell(c *Call, code Word) {
	c.code = true
	if !code.Known {
		a.unresolvedCode(c, code)
		return
	}
	if !a.enter() {
		return
	}
	defer func() { a.depth-- }()
	why := ""
	if code.flags&wDecoded != 0 {
		why = "decoded"
		a.tagf(c, TagDecodedExec, "decoded shell code")
	}
	m := a.mark()
	a.cwd = callCwd(a, c)
	// Code a program runs (sh -c, su -c, ssh, flock -c, script -c, a
	// python os.system) runs in another process: what it assigns or where
	// it moves dies with it. Only the builtins (eval, trap, alias, bind)
	// run code in this shell.
	child := c.prog != nil
	if child && c.prog.Lang == "sh" && c.prog.StdinCode {
		a.bindParams(c, code)
	}
	deferred := c.Name == "trap" || c.Name == "alias" || c.Name == "bind"
	havoc := a.havocAll
	if deferred {
		// It runs later (a trap at exit, before each command, on a
		// signal; a key binding when the key is pressed; an alias on a
		// later line): the variables it reads are what they will be
		// then, and a trap's or binding's directory too. (An alias
		// body's relative paths are judged from here.)
		a.havocAll = true
		if c.Name != "alias" {
			a.cwd = ""
		}
	}
	a.shellCode(code.Value, c.stdin, why)
	a.havocAll = havoc || a.havocAll && !deferred
	switch {
	case child:
		a.rewind(m) // a child process's state dies with it
		a.failSet = false
	case deferred:
		a.anyTime(m)
	}
	// eval and source run in this shell: their state stays, down to a
	// cd the code ends with, which may have failed (failSet).
}

// bindParams sets $0, $1, ... of sh -c CODE ARG0 ARGS... to the words
// after the code.
func (a *analyzer) bindParams(c *Call, code Word) {
	k := -1
	for i := range c.Args {
		if c.Args[i] == code {
			k = i
			break
		}
	}
	if k < 0 {
		return
	}
	a.setParams(c.Args[k+1:])
}

// setParams binds $0, $1, ... $9, $#, $@ and $* to params (params[0] is
// $0). More than ten parameters are left unknown.
func (a *analyzer) setParams(params []Word) {
	if len(params) > 10 {
		return
	}
	empty := Word{Known: true}
	for i := 0; i <= 9; i++ {
		w := empty
		if i < len(params) {
			w = params[i]
		}
		a.setVar(paramNames[i], w, nil)
	}
	n := max(len(params)-1, 0)
	a.setVar("#", Word{Value: paramNames[n], Known: true}, nil)
	switch n {
	case 0:
		a.setVar("@", empty, nil)
		a.setVar("*", empty, nil)
	case 1:
		a.setVar("@", params[1], nil)
		a.setVar("*", params[1], nil)
	default:
		a.setVar("@", Word{}, nil)
		a.setVar("*", Word{}, nil)
	}
}

var paramNames = [...]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// unresolvedCode tags code the analyser cannot see.
func (a *analyzer) unresolvedCode(c *Call, code Word) {
	switch {
	case code.flags&wNet != 0:
		a.tagf(c, TagDownloadExec, "code from a download")
	case code.flags&wDecoded != 0:
		a.tagf(c, TagDecodedExec, "decoded code")
	default:
		a.tagf(c, TagEval, "unresolved code")
	}
}
