package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// This file interprets a Program of the knowledge base for one call:
// flags, positional roles, subcommands, tags and the Check function.

// apply interprets prog for the call and returns the call's output.
func (a *analyzer) apply(c *Call, p *Program, in *stream) stream {
	c.prog = p
	c.Args = splitPieces(c.Name, c.Args)
	c.Positional = a.wordSlice(len(c.Args))
	args := c.Args
	endFlags, npos := false, 0
	// undescribed: the subcommand is not in the table; unknownFlag: the
	// previous word was an option the table does not list (it may take
	// this word as its value). Their RoleNone operands are RoleOperand.
	undescribed, unknownFlag := false, false
	for i := 0; i < len(args) && !a.stop; i++ {
		w := args[i]
		if p.OptionsFirst && npos > 0 {
			endFlags = true
		}
		if !endFlags && isFlagWord(w) {
			if w.Value == "--" {
				endFlags, unknownFlag = true, false
				continue
			}
			unknownFlag = unknownBareFlag(p, w)
			i = a.flag(c, args, i)
			continue
		}
		if npos == 0 && p.Sub != nil {
			sp, ok := p.Sub[w.Value]
			ok = ok && w.Known
			undescribed = undescribed || !ok
			if !w.Known {
				// Which subcommand runs is not known: as for a dynamic
				// command name, nobody can say what it does.
				a.tagf(c, TagOpaque, "unresolved subcommand "+w.pattern())
			}
			if ok || p.SubDefault != nil {
				if !ok {
					sp = p.SubDefault
				}
				a.progTags(c, p)
				p, c.prog = sp, sp
				unknownFlag = false
				continue
			}
		}
		role := p.Rest
		if npos < len(p.Args) {
			role = p.Args[npos]
		}
		if role == RoleNone && (undescribed || unknownFlag) {
			role = RoleOperand
		}
		unknownFlag = false
		npos++
		c.Positional = append(c.Positional, w)
		if role == RoleScript && (c.code || stdinScript(c) || moduleRun(c)) {
			// Code came with a flag (sh -c, python -c), sh -s reads it
			// from stdin, or python -m runs a module: the operands are its
			// arguments, not a script (a Check says what they mean).
			c.Positional = append(c.Positional, args[i+1:]...)
			break
		}
		if stopsArgs(role) {
			c.Positional = append(c.Positional, args[i+1:]...)
			a.restArgs(c, role, args[i:])
			break
		}
		a.role(c, role, w)
	}
	a.progTags(c, p)
	if p.Check != nil && !a.stop {
		a.prep(c)
		p.Check(c)
	}
	out := a.finish(c, in)
	a.putMap(c.Flags)
	c.Flags = nil
	return out
}

// unknownBareFlag reports whether w is an option p's flag table does not
// list, given without an attached value ("--frob", "-Z"; not "--frob=x").
func unknownBareFlag(p *Program, w Word) bool {
	if !flagTable(p) || strings.Contains(w.Value, "=") {
		return false
	}
	if strings.HasPrefix(w.Value, "--") {
		_, ok := p.Flags[w.Value]
		return !ok
	}
	if _, ok := p.Flags[w.Value]; ok {
		return false
	}
	for j := 1; j < len(w.Value); j++ {
		f, ok := p.Flags[shortName(w.Value[j])]
		if !ok {
			return true
		}
		if f.Value {
			return false // -oVALUE
		}
	}
	return false
}

// flagTable reports whether p's table describes its options: without a
// flag table, a Check parses them itself (sed, find), and the core does
// not guess what an option it has not listed takes.
func flagTable(p *Program) bool { return p.Flags != nil || p.Check == nil }

// isFlagWord reports whether an argument is an option.
func isFlagWord(w Word) bool {
	return len(w.Value) > 1 && w.Value[0] == '-' && (w.Known || w.Value[1] == '-' || len(w.Value) > 2)
}

// stopsArgs reports whether a role takes the rest of the command line.
func stopsArgs(r Role) bool {
	return r == RoleCommand || r == RoleShellCode || r == RoleScript
}

// restArgs handles a role that consumes the rest of the arguments.
func (a *analyzer) restArgs(c *Call, r Role, rest []Word) {
	switch r {
	case RoleCommand:
		a.run(c, rest)
	case RoleShellCode:
		a.role(c, r, rest[0])
	case RoleScript:
		a.role(c, r, rest[0])
		a.unknownArgs(c, rest[1:])
	}
}

func (a *analyzer) progTags(c *Call, p *Program) {
	for _, t := range p.Tags {
		a.tagf(c, t, "")
	}
}

// flag interprets the option at args[i]; it returns the index of the
// last argument consumed.
func (a *analyzer) flag(c *Call, args []Word, i int) int {
	w := args[i]
	p := c.prog
	if strings.HasPrefix(w.Value, "--") || hasFlag(p, w.Value) {
		name, val, eq := strings.Cut(w.Value, "=")
		f, ok := p.Flags[name]
		if !ok || !f.Value {
			v := Word{Value: val, Known: w.Known}
			a.setFlag(c, name, v, f)
			if !ok && eq && flagTable(p) {
				// --unknown=VALUE: judged as an operand.
				if !w.Known {
					_, v.pat, _ = strings.Cut(w.pattern(), "=")
				}
				a.role(c, RoleOperand, v)
			}
			return i
		}
		var v Word
		switch {
		case eq:
			v = Word{Value: val, Known: w.Known, Glob: w.Glob, flags: w.flags}
			if !w.Known {
				_, v.pat, _ = strings.Cut(w.pattern(), "=")
			}
		case i+1 < len(args):
			i++
			v = args[i]
		}
		a.setFlag(c, name, v, f)
		return i
	}
	return a.shortFlags(c, args, i)
}

func hasFlag(p *Program, s string) bool {
	if p.Flags == nil {
		return false
	}
	name, _, _ := strings.Cut(s, "=")
	_, ok := p.Flags[name]
	return ok
}

// shortFlags interprets a cluster of short options ("-rf", "-oFILE").
func (a *analyzer) shortFlags(c *Call, args []Word, i int) int {
	w := args[i]
	s := w.Value
	c.setRaw(s, Word{Known: true})
	for j := 1; j < len(s); j++ {
		name := shortName(s[j])
		f, ok := c.prog.Flags[name]
		if !ok && w.Known && j+1 < len(s) && flagTable(c.prog) && looksLikeOperand(s[j+1:]) {
			// -Xsome/path with X unknown: X may take the rest as its value.
			v := Word{Value: s[j+1:], Known: w.Known, Glob: w.Glob, flags: w.flags}
			a.setFlag(c, name, v, f)
			a.role(c, RoleOperand, v)
			break
		}
		if !ok || !f.Value {
			a.setFlag(c, name, Word{Known: true}, f)
			continue
		}
		var v Word
		switch {
		case j+1 < len(s):
			v = Word{Value: s[j+1:], Known: w.Known, Glob: w.Glob, flags: w.flags}
		case i+1 < len(args):
			i++
			v = args[i]
		}
		a.setFlag(c, name, v, f)
		break
	}
	return i
}

// setFlag records a flag with its value and applies its meaning.
func (a *analyzer) setFlag(c *Call, name string, v Word, f Flag) {
	c.setRaw(name, v)
	for _, t := range f.Tags {
		a.tagf(c, t, name)
	}
	if !f.Value || f.Role == RoleNone {
		return
	}
	if f.Role == RoleCommand {
		if v.Known && strings.ContainsAny(v.Value, " \t") {
			a.runShell(c, v)
		} else {
			a.run(c, []Word{v})
		}
		return
	}
	a.role(c, f.Role, v)
}

func (c *Call) setRaw(name string, v Word) {
	if c.Flags == nil {
		c.Flags = c.an.getMap()
	}
	c.Flags[name] = v
}

// role applies the meaning of one argument.
func (a *analyzer) role(c *Call, r Role, w Word) {
	switch r {
	case RoleRead:
		a.use(c, w, action.AccessRead)
	case RoleWrite:
		a.use(c, w, action.AccessWrite)
	case RoleMkdir:
		a.useMkdir(c, w)
	case RoleDelete:
		a.use(c, w, action.AccessDelete)
	case RoleReadWrite:
		a.use(c, w, action.AccessRead|action.AccessWrite)
	case RoleURL:
		a.url(c, w, c.prog != nil && c.prog.Upload)
	case RoleHost:
		a.host(c, w, "", c.prog != nil && c.prog.Upload, false)
	case RoleRemote:
		a.remote(c, w)
	case RoleCode:
		c.code = true
		a.runCode(c, c.prog.Lang, w)
	case RoleShellCode:
		c.code = true
		a.runShell(c, w)
	case RoleCommand:
		a.run(c, []Word{w})
	case RoleScript:
		c.code = true
		a.script(c, w)
	case RoleOperand:
		a.operand(c, w)
	case RoleDir:
		a.use(c, w, action.AccessRead)
		if p, ok := a.abs(c, w); ok {
			c.Cwd = p
		} else {
			c.Cwd = ""
		}
	}
}

// remote handles an scp/rsync operand: "[user@]host:path" is remote; a
// local last operand after others is the destination.
func (a *analyzer) remote(c *Call, w Word) {
	v := w.Value
	colon := strings.IndexByte(v, ':')
	slash := strings.IndexByte(v, '/')
	if colon > 0 && (slash < 0 || colon < slash) {
		upload := false
		for _, x := range c.Positional[:len(c.Positional)-1] {
			if !strings.Contains(x.Value, ":") {
				upload = true
			}
		}
		a.host(c, Word{Value: v[:colon], Known: w.Known}, "", upload, false)
		return
	}
	acc := action.AccessRead
	if len(c.Positional) > 1 && len(c.Args) > 0 && c.Args[len(c.Args)-1] == w {
		acc = action.AccessWrite
	}
	a.use(c, w, acc)
}

// script records a script a program runs.
func (a *analyzer) script(c *Call, w Word) {
	if w.proc > 0 && w.proc <= len(a.procs) {
		s := a.procs[w.proc-1]
		a.execStream(c, c.prog.Lang, &s)
		return
	}
	if w.Known && w.Value == "-" {
		c.code = false // code from stdin
		return
	}
	a.use(c, w, action.AccessRead)
	p, ok := a.abs(c, w)
	if !ok {
		a.tagf(c, TagOpaque, "unresolved script")
		return
	}
	if a.isDownloaded(p) {
		a.tagf(c, TagDownloadExec, p)
	}
	a.tagf(c, TagUnknownProgram, p)
	a.eff.Execs = append(a.eff.Execs, Exec{Name: lastElem(p), Path: p, Depth: a.depth + 1})
}

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// moduleRun reports python -m MODULE: the module is the program, and
// checkPython says what its operands are.
func moduleRun(c *Call) bool {
	if c.prog == nil || c.prog.Lang != "python" {
		return false
	}
	_, ok := c.Flag("-m")
	return ok
}

// stdinScript reports whether a shell was told by -s to read its code from
// stdin, so that its operands are positional parameters.
func stdinScript(c *Call) bool {
	if c.prog == nil || c.prog.Lang != "sh" {
		return false
	}
	_, ok := c.Flag("-s")
	return ok
}
