package shell

import (
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/parallax/parallax/action"
	"mvdan.cc/sh/v3/syntax"
)

// This file runs simple commands: it resolves the command name and hands
// the call to a builtin, a function or the knowledge base.

// callExpr walks a simple command (with its assignments).
func (a *analyzer) callExpr(ce *syntax.CallExpr, in *stream) stream {
	mark := len(a.wsrc)
	defer func() { a.wsrc = a.wsrc[:mark] }()
	if len(ce.Args) == 0 {
		for _, as := range ce.Assigns {
			a.assign(as, true)
		}
		return stream{}
	}
	prevAlt := a.altVar
	a.altVar = ""
	argv := a.wordSlice(len(ce.Args) + 2) // lives as long as the analysis
	for _, w := range ce.Args {
		argv = a.words(argv, w)
	}
	alt := a.altVar
	a.altVar = prevAlt
	if alt != "" && !a.stop {
		// A variable that holds one of a few known values (the branches
		// before left different ones): the call once with each.
		var out stream
		m := a.mark()
		alts := a.altsOf(alt)
		ends := make([]pathEnd, 0, len(alts))
		for _, v := range alts {
			a.putVar(alt, v, nil) // this value (a readonly one too)
			out = joinStreams(out, a.callExpr(ce, in))
			ends = a.endAll(ends, m)
		}
		a.merge(m, false, ends...)
		return out
	}
	for _, as := range ce.Assigns {
		a.assign(as, false) // X=v cmd: the command's environment
	}
	if a.stop {
		return stream{}
	}
	return a.runArgv(argv, in, mark)
}

// assign evaluates one assignment; keep makes it visible afterwards.
func (a *analyzer) assign(as *syntax.Assign, keep bool) {
	if as == nil || as.Name == nil {
		return
	}
	mark := len(a.wsrc)
	var w Word
	switch {
	case as.Array != nil:
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				a.word1(e.Value)
			}
		}
	case as.Value != nil:
		w = a.word1(as.Value)
	default:
		w = Word{Known: true}
	}
	name := as.Name.Value
	if as.Append {
		old, _, found := a.getVar(name)
		w = Word{Value: old.Value + w.Value, Known: found && old.Known && w.Known}
	}
	a.histVar(name, w)
	a.envCode(name, w)
	a.envAssigned(name)
	if name == "GLOBIGNORE" {
		a.globRec = true // GLOBIGNORE also makes globs match dot names
	}
	if keep {
		srcs := append([]source(nil), a.wsrc[mark:]...)
		a.setVar(name, w, srcs)
	}
}

// histVar tags assignments that disable shell history.
func (a *analyzer) histVar(name string, w Word) {
	switch name {
	case "HISTFILE":
		if w.Known && (w.Value == "/dev/null" || w.Value == "") {
			a.tagf(nil, TagHistoryWipe, name)
		}
	case "HISTSIZE", "HISTFILESIZE":
		if w.Known && w.Value == "0" {
			a.tagf(nil, TagHistoryWipe, name)
		}
	}
}

// runArgv runs a resolved argv. smark is where the data sources of its
// words start in analyzer.wsrc.
func (a *analyzer) runArgv(argv []Word, in *stream, smark int) stream {
	if len(argv) == 0 || !a.tick() {
		return stream{}
	}
	name := argv[0]
	a.nameFacts(name)
	if !name.Known || name.Value == "" {
		return a.dynamic(argv, in, smark)
	}
	if name.Glob {
		cands := globNames(name.pattern())
		if len(cands) == 0 || len(cands) > maxGlobNames {
			// No program, or so many that the name is as good as unknown.
			return a.dynamic(argv, in, smark)
		}
		a.tagf(nil, TagObfuscation, "glob command name "+name.Value)
		var out stream
		for _, c := range cands {
			if !a.tick() {
				break
			}
			v := append([]Word{{Value: c, Known: true}}, argv[1:]...)
			out = joinStreams(out, a.runNamed(c, v, in, smark))
		}
		return out
	}
	return a.runNamed(name.Value, argv, in, smark)
}

// nameFacts tags how a command name was built.
func (a *analyzer) nameFacts(name Word) {
	if name.flags&wObf != 0 {
		a.tagf(nil, TagObfuscation, "command name obfuscated: "+name.Value)
	}
	if name.flags&wSubst != 0 && name.Known {
		a.tagf(nil, TagObfuscation, "command name from a substitution: "+name.Value)
	}
	if name.flags&wDecoded != 0 {
		a.tagf(nil, TagObfuscation, "decoded command name")
		a.tagf(nil, TagDecodedExec, "command name")
	}
	if name.flags&wNet != 0 {
		a.tagf(nil, TagDownloadExec, "command name")
	}
}

// dynamic records a command whose name is not known statically.
func (a *analyzer) dynamic(argv []Word, in *stream, smark int) stream {
	if base, ok := dynamicBase(argv[0]); ok && progWord(argv[0]) && !a.isFunc(base) && !isBuiltin(base) {
		// "$(which gcc)": the file PATH finds for gcc, which is running
		// gcc (a function or builtin of that name is not what runs).
		v := append([]Word{{Value: base, Known: true}}, argv[1:]...)
		return a.runNamed(base, v, in, smark)
	}
	a.tagf(nil, TagDynamicCommand, argv[0].pattern())
	c := a.newCall("", argv, in, smark)
	a.recordExec(c, "")
	a.unknownArgs(c, argv[1:])
	out := a.output(c, in)
	if base, ok := dynamicBase(argv[0]); ok && anyDir(base) {
		// "$(which parallax)", "$DIR/parallax": whatever the directory,
		// the program is known by its name.
		v := append([]Word{{Value: base, Known: true}}, argv[1:]...)
		out = joinStreams(out, a.runNamed(base, v, in, smark))
	}
	return out
}

// dynamicBase returns the last path segment of a command name whose
// directory is unknown ("*/parallax") when that segment is literal.
func dynamicBase(name Word) (string, bool) {
	pat := name.pattern()
	i := strings.LastIndexByte(pat, '/')
	if i < 0 || i+1 == len(pat) || strings.ContainsAny(pat[i+1:], "*?[\\") {
		return "", false
	}
	return pat[i+1:], true
}

// runNamed runs a command by name or path.
func (a *analyzer) runNamed(name string, argv []Word, in *stream, smark int) stream {
	base, p := name, ""
	if strings.IndexByte(name, '/') >= 0 {
		base = path.Base(name)
		if abs, ok := a.absPath(a.cwd, name); ok {
			p = abs
		} else {
			a.tagf(nil, TagOpaque, "relative program path in unknown directory")
		}
		if a.isDownloaded(p) {
			a.tagf(nil, TagDownloadExec, p)
		}
	}
	for i := len(a.hashed) - 1; i >= 0 && p == ""; i-- {
		if a.hashed[i][0] == name {
			to := a.hashed[i][1]
			if strings.IndexByte(to, '/') < 0 {
				to = "./" + to // hash -p takes the path as written, from here
			}
			a.tagf(nil, TagObfuscation, "hash -p runs "+to+" as "+name)
			v := append([]Word{{Value: to, Known: true}}, argv[1:]...)
			return a.runNamed(to, v, in, smark)
		}
	}
	noFunc := a.noFunc
	a.noFunc = false // for the words and commands inside this one
	switch {
	case p == "" && !noFunc:
		return a.runName(name, base, argv, in, smark)
	case p == "" && isBuiltin(name):
		// command cd, builtin cd: the builtin, never a function or alias.
		return a.runAs(runWay{as: asBuiltin}, name, base, argv, in, smark)
	}
	return a.runFile(base, p, argv, in, smark)
}

// What a name may run as.
const (
	asAlias    = iota // the alias, expanded
	asFunc            // a function
	asBuiltin         // the builtin
	asProgram         // the program PATH finds
	asNotFound        // nothing: "command not found"
)

// runWay is one way a name may run: a function with its body.
type runWay struct {
	as    int
	body  *syntax.Stmt // asFunc
	alias Word         // asAlias
}

// runName runs a command name that may be an alias, a function, a
// builtin or a program. Where more than one may be what runs (bash
// expands an alias only with expand_aliases on; a function may be
// defined on one branch only, or named as a builtin), each is walked from
// the same state, and what follows sees the join of the states they leave.
func (a *analyzer) runName(name, base string, argv []Word, in *stream, smark int) stream {
	var buf [4]runWay
	ways := buf[:0]
	texts := a.aliasWays(name)
	aliased := len(texts) > 0
	for _, t := range texts {
		ways = append(ways, runWay{as: asAlias, alias: t})
	}
	bodies, none := a.funcWays(name)
	for _, b := range bodies {
		ways = append(ways, runWay{as: asFunc, body: b})
	}
	prog, bi := a.opt.Lookup(base) != nil, isBuiltin(name)
	switch {
	case len(bodies) > 0 && !none && !bi && !prog:
		// Only the function.
	case bi:
		// (Named as a builtin, a function may still not be what runs.)
		ways = append(ways, runWay{as: asBuiltin})
	case len(bodies) == 0 && !aliased || prog:
		ways = append(ways, runWay{as: asProgram})
	default:
		ways = append(ways, runWay{as: asNotFound})
	}
	if len(ways) == 1 {
		return a.runAs(ways[0], name, base, argv, in, smark)
	}
	m := a.mark()
	var out stream
	ends := make([]pathEnd, 0, 2*len(ways))
	for _, w := range ways {
		out = joinStreams(out, a.runAs(w, name, base, argv, in, smark))
		ends = a.endAll(ends, m)
	}
	a.merge(m, false, ends...)
	return out
}

// runAs runs a name one way.
func (a *analyzer) runAs(w runWay, name, base string, argv []Word, in *stream, smark int) stream {
	switch w.as {
	case asAlias:
		return a.expandAlias(name, w.alias, argv, in)
	case asFunc:
		return a.callFunc(name, w.body, argv, in)
	case asBuiltin:
		out, _ := a.builtin(name, argv, in, smark)
		return out
	case asProgram:
		return a.runFile(base, "", argv, in, smark)
	}
	return stream{}
}

// runFile runs the program base, found at p ("" for where PATH finds it).
func (a *analyzer) runFile(base, p string, argv []Word, in *stream, smark int) stream {
	var prog *Program
	if p == "" || isBinDir(path.Dir(p)) || anyDir(base) {
		prog = a.opt.Lookup(base)
	}
	c := a.newCall(base, argv, in, smark)
	a.recordExec(c, p)
	if prog == nil {
		detail := base
		if p != "" {
			detail = p
		}
		a.tagf(c, TagUnknownProgram, detail)
		if d := path.Dir(p); (d == "/etc/init.d" || d == "/etc/rc.d" || d == "/etc/rc.d/init.d") && len(argv) > 1 && argv[1].Known {
			a.signalUnits(c, argv[1].Value, []Word{{Value: base, Known: true}}, false) // /etc/init.d/cron stop
		}
		a.unknownArgs(c, argv[1:])
		a.last = lastCmd{name: base}
		return a.output(c, in)
	}
	return a.apply(c, prog, in)
}

// isBinDir reports whether programs in dir are the system's own (a
// program elsewhere, ./rm included, is not the one the KB describes).
func isBinDir(dir string) bool {
	switch dir {
	case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
		"/opt/homebrew/bin", "/usr/libexec", "/usr/lib/git-core":
		return true
	}
	return false
}

// anyDir reports whether a program is known by its name wherever it
// lives: Parallax's own CLI (./bin/parallax, ~/go/bin/parallax) changes
// the gate that judges the agent, from any directory.
func anyDir(base string) bool { return base == "parallax" }

// newCall prepares a Call.
func (a *analyzer) newCall(name string, argv []Word, in *stream, smark int) *Call {
	c := a.newCallSlot()
	*c = Call{
		Name:  name,
		Args:  argv[1:],
		Cwd:   a.cwd,
		Home:  a.opt.Home,
		Depth: a.depth,
		an:    a,
		stdin: in,
		pmark: len(a.eff.Paths),
		nmark: len(a.eff.Network),
		smark: smark,
	}
	return c
}

// recordExec records the program run.
func (a *analyzer) recordExec(c *Call, p string) {
	args := a.argStrings(len(c.Args))
	for i, w := range c.Args {
		if w.Known {
			args[i] = w.Value
		}
	}
	a.eff.Execs = append(a.eff.Execs, Exec{Name: c.Name, Path: p, Args: args, Depth: a.depth})
}

// unknownArgs records what unknown programs' arguments look like: paths
// are taken as reads, URLs as destinations.
func (a *analyzer) unknownArgs(c *Call, args []Word) {
	for _, w := range args {
		v := w.Value
		if !w.Known {
			v = w.pattern()
		}
		if strings.HasPrefix(v, "-") {
			_, val, ok := strings.Cut(v, "=")
			if !ok {
				continue
			}
			v = val
			w = Word{Value: val, Known: w.Known, Glob: w.Glob}
		}
		a.operandValue(c, w, v)
	}
}

// operand judges an argument the knowledge base does not describe
// (RoleOperand): a URL is a destination, a path-like word a read.
func (a *analyzer) operand(c *Call, w Word) {
	if w.proc > 0 {
		a.use(c, w, action.AccessRead)
		return
	}
	v := w.Value
	if !w.Known {
		v = w.pattern()
	}
	a.operandValue(c, w, v)
}

func (a *analyzer) operandValue(c *Call, w Word, v string) {
	switch {
	case strings.Contains(v, "://"):
		a.url(c, w, false)
	case looksLikeOperand(v):
		a.use(c, w, action.AccessRead)
	}
}

// looksLikeOperand reports whether an undescribed argument is probably a
// path: path-like, a dot-file name (.env, .npmrc, .ssh), or the name of a
// private key file (git frobnicate id_rsa): a bare name that names a key
// is taken as the key, so the guard judges it.
func looksLikeOperand(v string) bool {
	return looksLikePath(v) || len(v) > 1 && v[0] == '.' && isAlnum(v[1]) || privateKeyNames[v]
}

// privateKeyNames are the default file names of SSH private keys.
var privateKeyNames = map[string]bool{"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
	"id_ecdsa_sk": true, "id_ed25519_sk": true}

// looksLikePath reports whether an argument is probably a path.
func looksLikePath(v string) bool {
	if v == "" {
		return false
	}
	return v[0] == '/' || v[0] == '~' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		v == "." || v == ".." || strings.IndexByte(v, '/') >= 0
}

var (
	knownNamesOnce sync.Once
	knownNames     []string
)

// commonNames are matched by glob command names even when the knowledge
// base does not list them.
var commonNames = []string{
	"cat", "rm", "sh", "bash", "dash", "zsh", "nc", "ncat", "curl", "wget", "python", "python3",
	"perl", "ruby", "php", "node", "base64", "chmod", "chown", "cp", "mv", "dd", "ls", "echo",
	"tee", "id", "whoami", "uname", "head", "tail", "less", "more", "nl", "od", "xxd", "tac",
	"find", "grep", "awk", "sed", "socat", "telnet", "ssh", "scp", "mkfs", "shred", "kill",
}

// loadNames builds the sorted list of well-known program names once. It
// is called from Analyze, not from code the knowledge base can reach
// during its own initialisation.
func loadNames() {
	knownNamesOnce.Do(func() {
		set := map[string]bool{}
		for _, n := range commonNames {
			set[n] = true
		}
		for n := range programs() {
			set[n] = true
		}
		for n := range set {
			knownNames = append(knownNames, n)
		}
		sort.Strings(knownNames)
	})
}

// globNames returns the well-known program names (or paths in the
// standard bin directories) a glob command name may run, sorted.
func globNames(pat string) []string {
	var out []string
	for _, n := range knownNames {
		if strings.IndexByte(pat, '/') < 0 {
			if ok, _ := path.Match(pat, n); ok {
				out = append(out, n)
			}
			continue
		}
		for _, d := range [...]string{"/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/"} {
			if ok, _ := path.Match(pat, d+n); ok {
				out = append(out, d+n)
				break
			}
		}
	}
	return out
}
