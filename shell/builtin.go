package shell

import (
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"mvdan.cc/sh/v3/syntax"
)

// This file handles bash builtins: they change the shell's own state
// (directory, variables, descriptors) or run code (eval, source, exec).

// builtin runs a shell builtin; ok is false when name is not one.
func (a *analyzer) builtin(name string, argv []Word, in *stream, smark int) (out stream, ok bool) {
	if !isBuiltin(name) {
		return stream{}, false
	}
	c := a.newCall(name, argv, in, smark)
	a.recordExec(c, "")
	a.last = lastCmd{name: name}
	switch name {
	case "cd", "pushd", "popd":
		a.cd(c)
	case "echo":
		return a.echo(c), true
	case "printf":
		return a.printf(c), true
	case "eval":
		a.eval(c)
	case "exec", "command", "builtin":
		return a.wrapper(c, in, smark), true
	case "source", ".":
		if len(c.Args) > 0 {
			c.prog = &Program{Lang: "sh"}
			a.script(c, c.Args[0])
			if a.sourced(c) { // sourcefile.go
				break
			}
		}
		// Code from a file the walk does not see runs in this shell: any
		// variable may hold anything after it, the directory anywhere.
		a.havocAll, a.cwd = true, ""
	case "exit":
		a.dead = true
	case "shift":
		// The positional parameters move: $1 is what $2 was, or unknown.
		n := 1
		if len(c.Args) > 0 {
			n = -1
			if v, err := strconv.Atoi(c.Args[0].Value); err == nil && c.Args[0].Known && v >= 0 && v <= 9 {
				n = v
			}
		}
		a.shiftParams(n)
	case "hash":
		// hash -p PATH NAME: NAME runs the program at PATH from now on.
		for i, w := range c.Args {
			if w.Value == "-p" && i+2 < len(c.Args) {
				p, n := c.Args[i+1], c.Args[i+2]
				if !p.Known || !n.Known {
					a.tagf(c, TagDynamicCommand, "hash -p with a name or path known only at run time")
					break
				}
				a.hashed = append(a.hashed, [2]string{n.Value, p.Value})
			}
		}
	case "getopts":
		for i, w := range c.Args {
			if i == 1 {
				a.assignUnknown(w)
			}
		}
		a.setVar("OPTARG", Word{}, nil)
		a.setVar("OPTIND", Word{}, nil)
	case "wait":
		for i, w := range c.Args {
			if w.Value == "-p" && i+1 < len(c.Args) {
				a.assignUnknown(c.Args[i+1])
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		a.declArgs(name, c.Args)
	case "read", "mapfile", "readarray":
		a.read(c, in)
	case "alias", "trap":
		a.deferredCode(c)
	case "unalias":
		a.unalias(c.Args)
	case "shopt":
		// globstar makes ** cross directories, dotglob makes wildcards
		// match dot names: globs get find semantics from here on. lastpipe
		// runs a pipeline's last stage in this shell.
		for _, w := range c.Args {
			if !w.Known || w.Value == "globstar" || w.Value == "dotglob" {
				a.globRec = true
			}
			if !w.Known || w.Value == "lastpipe" {
				a.lastpipe = true
			}
		}
	case "type":
		if len(c.Args) == 2 && c.Args[0].Known && (c.Args[0].Value == "-P" || c.Args[0].Value == "-p") {
			return progLookup(true, c.Args[1:]), true
		}
	case "set", "unset", "history":
		a.histBuiltin(c)
		if name == "set" && len(c.Args) == 0 {
			return stream{piped: true, from: name, envDump: true}, true
		}
	case "compgen":
		// compgen -e / -v: the name of every variable.
		if len(c.Args) == 1 && c.Args[0].Known && (c.Args[0].Value == "-e" || c.Args[0].Value == "-v") {
			return stream{piped: true, from: name, envNames: true}, true
		}
	case "enable", "fc":
		a.tagf(c, TagOpaque, name)
	case "bind":
		a.bind(c)
	}
	return stream{}, true
}

// unalias undefines aliases (-a: all of them).
func (a *analyzer) unalias(args []Word) {
	for _, w := range args {
		switch {
		case !w.Known:
			a.aliases = unbind(a.aliases, "", true) // any of them
		case w.Value == "-a":
			a.aliases = unbind(a.aliases, "", false)
		default:
			a.aliases = unbind(a.aliases, w.Value, false)
		}
	}
}

// cd changes the tracked working directory.
func (a *analyzer) cd(c *Call) {
	var dir Word
	for _, w := range c.Args {
		if !(w.Known && strings.HasPrefix(w.Value, "-") && w.Value != "-") {
			dir = w
			break
		}
	}
	switch {
	case c.Name == "popd":
		a.failSet, a.failCwd = true, a.cwd
		if n := len(a.dirs); n > 0 {
			a.cwd, a.dirs = a.dirs[n-1], a.dirs[:n-1]
		} else {
			a.cwd = ""
		}
		return
	case dir == (Word{}):
		dir = Word{Value: "~", Known: true}
	case dir.Known && dir.Value == "-":
		a.cwd = ""
		return
	}
	a.failSet, a.failCwd = true, a.cwd // cd fails on a missing directory
	if c.Name == "pushd" {
		a.dirs = append(a.dirs, a.cwd)
	}
	p, ok := a.absPath(a.cwd, dir.Value)
	if !dir.Known || dir.Glob || !ok || a.cdPath() && viaCdPath(dir.Value) {
		a.cwd = ""
		return
	}
	a.cwd = p
}

// cdPath reports whether CDPATH may be set (the command set it, or code
// the walk cannot see may have).
func (a *analyzer) cdPath() bool {
	if a.havocAll || slices.Contains(a.volatile, "CDPATH") {
		return true
	}
	w, _, found := a.getVar("CDPATH")
	return found && !(w.Known && w.Value == "")
}

// viaCdPath reports whether cd looks for dir in the directories CDPATH
// lists (before the current one): a relative name not starting with "."
// or "..".
func viaCdPath(dir string) bool {
	return dir != "" && dir[0] != '/' && dir != "." && dir != ".." &&
		!strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../")
}

// eval runs its arguments, joined, as shell code.
func (a *analyzer) eval(c *Call) {
	a.tagf(c, TagEval, "")
	a.runShell(c, joinArgs(c.Args))
}

// joinArgs joins words with spaces into one word.
func joinArgs(ws []Word) Word {
	out := Word{Known: true}
	var sb strings.Builder
	for i, w := range ws {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(w.Value)
		out.Known = out.Known && w.Known
		out.flags |= w.flags
	}
	out.Value = sb.String()
	return out
}

// wrapper runs exec/command/builtin's command in the same shell.
func (a *analyzer) wrapper(c *Call, in *stream, smark int) stream {
	args := c.Args
	for len(args) > 0 && args[0].Known && strings.HasPrefix(args[0].Value, "-") {
		v := args[0].Value
		args = args[1:]
		if c.Name == "command" && (v == "-v" || v == "-V") {
			return progLookup(v == "-v", args)
		}
		if c.Name == "exec" && v == "-a" && len(args) > 0 {
			args = args[1:]
		}
		if v == "--" {
			break
		}
	}
	if len(args) == 0 {
		return stream{}
	}
	// command, builtin and exec run the builtin or program of that name,
	// never a function or an alias.
	prev := a.noFunc
	a.noFunc = true
	defer func() { a.noFunc = prev }()
	return a.runArgv(args, in, smark)
}

// isBuiltin reports whether name is a shell builtin the analyser knows.
func isBuiltin(name string) bool {
	switch name {
	case ":", "true", "false", "shift", "wait", "jobs", "fg", "bg", "disown", "return", "exit",
		"break", "continue", "umask", "ulimit", "hash", "type", "shopt", "getopts", "times",
		"caller", "help", "let", "test", "[", "logout", "suspend", "complete", "compgen",
		"compopt", "dirs", "local", "declare", "typeset", "readonly", "export", "unset",
		"set", "alias", "unalias", "trap", "history", "read", "mapfile", "readarray",
		"cd", "pushd", "popd", "echo", "printf", "eval", "exec", "command", "builtin",
		"source", ".", "enable", "fc", "bind":
		return true
	}
	return false
}

// progLookup is the output of command -v NAME or type -P NAME: where the
// program is found (stream.prog), for one literal name; nothing known
// otherwise.
func progLookup(path bool, args []Word) stream {
	if !path || len(args) != 1 || !args[0].Known || args[0].Value == "" ||
		strings.ContainsAny(args[0].Value, "/*?[\\") {
		return stream{}
	}
	return stream{prog: args[0].Value}
}

// declArgs handles export/declare given as plain arguments.
func (a *analyzer) declArgs(cmd string, args []Word) {
	ro := cmd == "readonly"
	for _, w := range args {
		if !w.Known || nameref(w.Value) {
			a.havocAll = true
		}
		ro = ro || readonlyOpt(cmd, w)
		name, val, ok := strings.Cut(w.Value, "=")
		if strings.HasPrefix(name, "-") {
			continue
		}
		a.envAssigned(name)
		if ok {
			v := Word{Value: val, Known: w.Known}
			a.histVar(name, v)
			a.setVar(name, v, nil)
		}
		a.markReadonly(ro, w.Known, name)
	}
}

// readonlyOpt reports whether w is an option of declare, typeset or
// local that makes the names readonly (-r in a cluster), or may be.
func readonlyOpt(cmd string, w Word) bool {
	if cmd != "declare" && cmd != "typeset" && cmd != "local" {
		return false
	}
	return !w.Known || len(w.Value) > 1 && w.Value[0] == '-' && strings.ContainsRune(w.Value[1:], 'r')
}

// markReadonly notes that name (known: name is the whole name) is
// readonly from now on when ro: assigning it may fail.
func (a *analyzer) markReadonly(ro, known bool, name string) {
	switch {
	case !ro:
	case !known || !validName(name):
		a.anyReadonly = true
	case !slices.Contains(a.readonly, name):
		a.readonly = append(a.readonly, name)
	}
}

// declClause handles export/declare/local/readonly as parsed. With no
// name to declare (export -p, declare -p, a bare export) it prints the
// variables: its output is the environment.
func (a *analyzer) declClause(d *syntax.DeclClause) stream {
	name := ""
	if d.Variant != nil {
		name = d.Variant.Value
	}
	a.eff.Execs = append(a.eff.Execs, Exec{Name: name, Depth: a.depth})
	ei := len(a.eff.Execs) - 1
	named := false
	ro := name == "readonly"
	for _, as := range d.Args {
		if as.Naked {
			if as.Name == nil && as.Value != nil {
				w := a.word1(as.Value) // an option such as -x
				if !w.Known || nameref(w.Value) {
					// A name bound to another: writing one writes the
					// other, whatever the walk thinks each holds.
					a.havocAll = true
				}
				ro = ro || readonlyOpt(name, w)
				a.eff.Execs[ei].Args = append(a.eff.Execs[ei].Args, w.Value)
				continue
			}
			named = true
			a.declName(ei, as)
			if as.Name != nil {
				a.markReadonly(ro, true, as.Name.Value)
			}
			continue // export NAME: no new value
		}
		named = true
		a.declName(ei, as)
		a.assign(as, true)
		if as.Name != nil {
			a.markReadonly(ro, true, as.Name.Value)
		}
	}
	if named {
		return stream{}
	}
	return stream{piped: true, from: name, envDump: declDump(a.eff.Execs[ei].Args)}
}

// declName records the name a declaration sets or exports as an
// argument of its exec: "export FOO=1" is not the listing "export".
func (a *analyzer) declName(ei int, as *syntax.Assign) {
	if as.Name != nil {
		a.eff.Execs[ei].Args = append(a.eff.Execs[ei].Args, as.Name.Value)
	} else {
		a.eff.Execs[ei].Args = append(a.eff.Execs[ei].Args, "")
	}
}

// read assigns variables from standard input: unknown values that carry
// the input's sources.
func (a *analyzer) read(c *Call, in *stream) {
	var srcs []source
	if in != nil {
		srcs = in.srcs
	}
	if c.Name == "read" && in != nil && len(streamItems(in)) == 1 {
		// read NAME from a list of paths (find ... | while read f):
		// NAME is one of them.
		var name string
		n := 0
		for _, w := range c.Args {
			if w.Known && !strings.HasPrefix(w.Value, "-") && w.Value != "" {
				name, n = w.Value, n+1
			}
		}
		if n == 1 && len(c.Args) <= 2 {
			v := in.items[0]
			if !readNul(c.Args) {
				v.flags |= wSplit // lines: a name may hold a newline
			}
			a.setVar(name, v, srcs)
			return
		}
	}
	for _, w := range c.Args {
		switch {
		case !w.Known:
			a.havocAll = true // read "$name": any variable
		case !strings.HasPrefix(w.Value, "-") && w.Value != "":
			a.setVar(w.Value, Word{}, srcs)
		}
	}
}

// deferredCode analyses code that runs later (alias bodies, traps).
func (a *analyzer) deferredCode(c *Call) {
	for i, w := range c.Args {
		if strings.HasPrefix(w.Value, "-") {
			continue
		}
		if c.Name == "alias" {
			if name, body, ok := strings.Cut(w.Value, "="); ok {
				// Where it is used, expandAlias walks it. A shell that lives
				// on (an interactive session) may also run it in a later
				// command the gate sees as just its name: harmless for a new
				// name (an unknown program then), not for one that shadows a
				// builtin or a program (alias ls='rm -rf ~'): walked here.
				if !w.Known || isBuiltin(name) || a.opt.Lookup(name) != nil {
					a.runShell(c, Word{Value: body, Known: w.Known, flags: w.flags})
				}
				a.aliases = append(a.aliases, aliasState{name: name, defs: []Word{{Value: body, Known: w.Known, flags: w.flags}}})
			}
			continue
		}
		if i == 0 || c.Args[0].Value == "--" && i == 1 {
			a.runShell(c, w)
		}
		return
	}
}

// bind handles bind -x 'KEYSEQ: COMMAND' (a key that runs a command)
// and bind -f FILE (key bindings read from a file).
func (a *analyzer) bind(c *Call) {
	for i := 0; i < len(c.Args); i++ {
		w := c.Args[i]
		switch {
		case w.Value == "-x" && i+1 < len(c.Args):
			i++
			spec := c.Args[i]
			if !spec.Known {
				a.tagf(c, TagEval, "bind -x")
				continue
			}
			if _, cmd, ok := cutKeySeq(spec.Value); ok {
				a.tagf(c, TagCodeEscape, "bind -x: a key runs a command")
				a.runShell(c, Word{Value: cmd, Known: true, flags: spec.flags})
			}
		case w.Value == "-f" && i+1 < len(c.Args):
			i++
			a.use(c, c.Args[i], action.AccessRead)
		}
	}
}

// cutKeySeq splits '"\C-x": command' at the colon after the key sequence.
func cutKeySeq(s string) (key, cmd string, ok bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				_, rest, found := strings.Cut(s[i+1:], ":")
				return s[:i+1], strings.TrimSpace(rest), found
			}
		}
		return "", "", false
	}
	k, rest, found := strings.Cut(s, ":")
	return k, strings.TrimSpace(rest), found
}

// histBuiltin tags builtins that clear or disable history.
func (a *analyzer) histBuiltin(c *Call) {
	args := c.Args
	switch c.Name {
	case "history":
		for _, w := range args {
			if w.Value == "-c" || w.Value == "-cw" || strings.HasPrefix(w.Value, "-d") {
				a.tagf(c, TagHistoryWipe, w.Value)
			}
		}
	case "set":
		for i, w := range args {
			if w.Value == "+o" && i+1 < len(args) && args[i+1].Value == "history" {
				a.tagf(c, TagHistoryWipe, "set +o history")
			}
			if w.Known && w.Value == "--" {
				// set -- ARGS: new positional parameters ($0 unchanged).
				zero, _, _ := a.getVar("0")
				a.setParams(append([]Word{zero}, args[i+1:]...))
				break
			}
		}
	case "unset":
		funcs, vars := false, false
		for _, w := range args {
			if w.Value == "HISTFILE" {
				a.tagf(c, TagHistoryWipe, "unset HISTFILE")
			}
			switch {
			case w.Known && strings.HasPrefix(w.Value, "-"):
				funcs = funcs || strings.ContainsRune(w.Value, 'f')
				vars = vars || strings.ContainsRune(w.Value, 'v')
			case funcs && !w.Known:
				a.fnv = unbind(a.fnv, "", true)
			case funcs:
				a.fnv = unbind(a.fnv, w.Value, false) // the builtin or program of that name runs again
			case !w.Known:
				a.havocAll = true
				a.fnv = unbind(a.fnv, "", true)
			default:
				a.setVar(w.Value, Word{Known: true}, nil)
				if !vars {
					a.fnv = unbind(a.fnv, w.Value, true) // when no variable has that name
				}
			}
		}
	}
}

// nameref reports whether a declare/local/typeset option word makes a
// name reference (-n in a cluster of options).
func nameref(opt string) bool {
	return len(opt) > 1 && opt[0] == '-' && strings.ContainsRune(opt[1:], 'n')
}

// assignUnknown sets the variable a builtin writes to (getopts NAME, wait
// -p NAME) to an unknown value; an unknown name may be any variable.
func (a *analyzer) assignUnknown(w Word) {
	if !w.Known || w.Value == "" {
		a.havocAll = true
		return
	}
	a.setVar(w.Value, Word{}, nil)
}

// shiftParams moves the positional parameters n places ($1 becomes what
// $n+1 was); n < 0 (a count known only at run time) makes them unknown.
func (a *analyzer) shiftParams(n int) {
	if n == 0 {
		return
	}
	var old [10]Word
	var known [10]bool
	for i := 1; i <= 9; i++ {
		w, _, found := a.getVar(paramNames[i])
		old[i], known[i] = w, found
	}
	for i := 1; i <= 9; i++ {
		switch j := i + n; {
		case n < 0 || j > 9 || !known[j]:
			a.setVar(paramNames[i], Word{}, nil)
		default:
			a.setVar(paramNames[i], old[j], nil)
		}
	}
	for _, p := range []string{"#", "@", "*"} {
		a.setVar(p, Word{}, nil)
	}
}

// expandAlias analyses a call of a name defined as an alias as the alias
// expands it: BODY followed by the call's arguments. Bash expands aliases
// on the lines after the definition when expand_aliases is on, which it is
// in the shells some hosts run commands in (a snapshot of the user's
// shell), and off in bash -c: runName judges the call both ways.
func (a *analyzer) expandAlias(name string, body Word, argv []Word, in *stream) stream {
	if !body.Known {
		a.tagf(nil, TagEval, "alias "+name+" with a body known only at run time")
		return stream{}
	}
	var sb strings.Builder
	sb.WriteString(body.Value)
	for _, w := range argv[1:] {
		sb.WriteByte(' ')
		sb.WriteString(quoteArg(w))
	}
	if !a.enter() {
		return stream{}
	}
	a.expanding = append(a.expanding, name)
	out := a.shellCode(sb.String(), in, "alias")
	a.expanding = a.expanding[:len(a.expanding)-1]
	a.depth--
	return out
}

// quoteArg writes a resolved word back as shell text: quoted when known,
// its wildcards left active when it is a glob, and a variable nothing
// assigns (so unknown) when it is known only at run time.
func quoteArg(w Word) string {
	switch {
	case !w.Known:
		return `"$__parallax_unknown_argument"`
	case w.Glob:
		var sb strings.Builder
		for _, r := range w.Value {
			if !(r == '*' || r == '?' || r == '[' || r == ']' || r == '/' || r == '.' || r == '_' || r == '-' ||
				r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				sb.WriteByte('\\')
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	return "'" + strings.ReplaceAll(w.Value, "'", `'\''`) + "'"
}

// readNul reports whether read takes NUL-terminated records (-d ""),
// which no name can hold.
func readNul(args []Word) bool {
	for i, w := range args {
		if w.Known && w.Value == "-d" && i+1 < len(args) && args[i+1].Known && args[i+1].Value == "" {
			return true
		}
	}
	return false
}
