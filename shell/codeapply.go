package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// apply interprets one call found in inline code.
func (s *codeScan) apply(k ckind, i int, args []carg) {
	a0 := posArg(args, 0)
	switch k {
	case cShell:
		s.shellArg(argOr(args, 0, "cmd", "command", "args"))
	case cArgv, cArgvL:
		s.argv(k, args)
	case cExecAny:
		s.dynShell = true
	case cOpen, cOpenRW, cPathOpen:
		s.open(k, i, args)
	case cRead, cWrite, cDelete:
		a := argOr(args, 0, "file", "path", "filename", "fname", "name", "con", "description")
		if a == nil && s.emptyCall(i) {
			s.argFiles(codeAccess[k]) // fileinput.input(), io.lines(): the files named after the code, or stdin
			return
		}
		s.path(a, codeAccess[k])
	case cWrite2:
		s.path(argOr(args, 1, "file", "con", "path", "destfile"), action.AccessWrite)
	case cWriteRest:
		s.rest(args, action.AccessWrite)
	case cCopy, cMove:
		acc := action.AccessRead
		if k == cMove {
			acc |= action.AccessDelete
		}
		s.path(argOr(args, 0, "src", "from", "url", "source"), acc)
		s.path(argOr(args, 1, "dst", "to", "destfile", "dest", "destination", "filename"), action.AccessWrite)
	case cRecvRead, cRecvWrite, cRecvDelete:
		s.recvPath(i, codeAccess[k])
	case cEval:
		s.eval(a0)
	case cImport, cRequire, cLoad:
		s.load(k, a0)
	case cReflect:
		s.reflect(i, args)
	case cDecode:
		s.decode = true
	case cSocket:
		s.socket = true
	case cConnect, cListen, cSendTo:
		s.connect(k, args)
	case cDup:
		s.dup = true
	case cHost:
		s.hostArg(s.destArg(args))
	case cURL:
		s.dest(s.destArg(args), false)
	case cSend:
		if a0 == nil || !s.netValue(a0) {
			s.netAny = true
		}
	case cNetAny:
		s.netAny = true
	case cCurlOpt:
		if o := posArg(args, 1); o != nil && o.to == o.from+1 && s.toks[o.from].s == "CURLOPT_URL" {
			s.dest(posArg(args, 2), false)
		}
	case cPerlOpen:
		s.perlOpen(args)
	case cClient, cPure:
	}
}

// codeAccess is the access of the path kinds.
var codeAccess = map[ckind]action.Access{
	cRead: action.AccessRead, cWrite: action.AccessWrite, cDelete: action.AccessDelete,
	cRecvRead: action.AccessRead, cRecvWrite: action.AccessWrite, cRecvDelete: action.AccessDelete,
}

// emptyCall reports a call with empty parentheses: f().
func (s *codeScan) emptyCall(i int) bool {
	return i+2 < len(s.toks) && s.toks[i+1].s == "(" && s.toks[i+2].s == ")"
}

// argFiles records the code's arguments as paths (the files a reader of
// its command line opens).
func (s *codeScan) argFiles(acc action.Access) {
	for _, w := range s.codeArgs {
		if !w.Known || !strings.HasPrefix(w.Value, "-") {
			s.a.use(s.c, w, acc)
		}
	}
}

// rest records every positional argument after the first as a path.
func (s *codeScan) rest(args []carg, acc action.Access) {
	n := 0
	for k := range args {
		if args[k].kw == "" {
			if n > 0 {
				s.path(&args[k], acc)
			}
			n++
		}
	}
	if n < 2 {
		s.path(nil, acc)
	}
}

// shellArg handles a shell command argument.
func (s *codeScan) shellArg(a *carg) {
	if d, ok := s.decodedArg(a); ok {
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded shell command")
		s.shell(d)
		return
	}
	s.shellVal(s.value(a))
}

// decodedArg reports an argument that decodes a literal: b64decode("...").
func (s *codeScan) decodedArg(a *carg) (string, bool) {
	if a == nil || a.to-a.from < 4 {
		return "", false
	}
	t := s.toks[a.from]
	if t.kind != 'i' || s.toks[a.from+1].s != "(" || s.toks[a.from+2].kind != 's' {
		return "", false
	}
	if k, _ := s.lookup(a.from); k != cDecode && !strings.HasSuffix(t.s, "b64decode") {
		return "", false
	}
	s.used[a.from+2] = true
	return decodeBase("base64", s.toks[a.from+2].s)
}

// argv handles subprocess-style calls: an argv list, or a string that is
// a program (or shell code with shell=True or shell syntax).
func (s *codeScan) argv(k ckind, args []carg) {
	a0 := argOr(args, 0, "args", "cmd", "command", "executable")
	if d, ok := s.decodedArg(a0); ok {
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded command")
		s.shell(d)
		return
	}
	if a0 == nil {
		s.dynShell = true
		return
	}
	var argv []string
	for n, a := range args {
		if a.kw != "" && &args[n] != a0 {
			continue
		}
		if k == cArgvL && n == 1 {
			continue // execl(path, argv0, ...)
		}
		if items, ok := s.listVals(a.from, a.to); ok {
			argv = append(argv, items...)
			s.markUsed(a.from, a.to)
			continue
		}
		if s.closure(&args[n]) {
			continue // spawn(cmd, [...], { ... }) options
		}
		argv = append(argv, s.value(&args[n]))
	}
	for _, v := range argv {
		if !known(v) {
			s.dynShell = true
			return
		}
	}
	if len(argv) == 1 && (strings.ContainsAny(argv[0], " |;&<>$`") || s.hasShellTrue()) {
		s.shell(argv[0])
		return
	}
	s.run(argv)
}

// open handles open(path, mode); a path object's open takes the mode.
func (s *codeScan) open(k ckind, i int, args []carg) {
	if k == cPathOpen {
		if v, pathLike := s.recvVal(i); pathLike {
			s.pathVal(v, s.mode(argOr(args, 0, "mode"), action.AccessRead))
			return
		}
	}
	a0 := argOr(args, 0, "file", "path", "filename", "name", "description")
	def := action.AccessRead
	if k == cOpenRW {
		def |= action.AccessWrite
	}
	acc := s.mode(argOr(args, 1, "mode", "open", "flags"), def)
	if s.lang == "ruby" && a0 != nil {
		if v := s.val(a0.from, a0.to); strings.HasPrefix(v, "|") {
			s.value(a0)
			s.shellVal(v[1:]) // open("|cmd")
			return
		}
	}
	s.path(a0, acc)
}

// mode is the access an open mode gives (def when there is none).
func (s *codeScan) mode(a *carg, def action.Access) action.Access {
	if a == nil {
		return def
	}
	m := s.value(a)
	if !known(m) {
		return action.AccessRead | action.AccessWrite
	}
	acc := def
	if strings.ContainsAny(m, "wax") || strings.Contains(m, "O_WR") || strings.Contains(m, "O_CREAT") ||
		strings.Contains(m, "O_APPEND") || strings.Contains(m, "O_TRUNC") {
		acc = action.AccessWrite
	}
	if strings.Contains(m, "+") || strings.Contains(m, "O_RDWR") {
		acc = action.AccessRead | action.AccessWrite
	}
	return acc
}

// perlOpen handles open(FH, MODE, PATH) and open(FH, "MODEPATH").
func (s *codeScan) perlOpen(args []carg) {
	p := make([]*carg, 0, 3)
	for k := range args {
		p = append(p, &args[k])
	}
	if len(p) < 2 {
		s.path(nil, action.AccessRead|action.AccessWrite)
		return
	}
	var md, target string
	if len(p) >= 3 {
		md, target = s.value(p[1]), s.value(p[2])
		if len(p) > 3 && strings.Contains(md, "|") {
			s.dynShell = true // open(FH, "-|", "cmd", @args)
		}
	} else {
		spec := strings.TrimSpace(s.value(p[1]))
		m := strings.TrimLeft(spec, "+<>|- ")
		md = spec[:len(spec)-len(m)]
		if strings.HasSuffix(m, "|") {
			md, m = "-|", strings.TrimSuffix(m, "|")
		}
		target = strings.TrimSpace(m)
	}
	switch {
	case !known(md):
		s.dynShell = true
		s.pathVal(target, action.AccessRead|action.AccessWrite)
	case strings.Contains(md, "|"):
		s.shellVal(target)
	case strings.Contains(md, ">"):
		acc := action.AccessWrite
		if strings.Contains(md, "+") {
			acc |= action.AccessRead
		}
		s.pathVal(target, acc)
	default:
		s.pathVal(target, action.AccessRead)
	}
}

// eval handles exec/eval of code in the same language.
func (s *codeScan) eval(a *carg) {
	if a == nil || s.closure(a) {
		return // eval { ... }, setTimeout(() => ...)
	}
	if d, ok := s.decodedArg(a); ok {
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded code")
		s.a.tagf(s.c, TagObfuscation, "base64")
		w := s.word(d)
		w.flags |= wDecoded
		s.a.runCode(s.c, s.lang, w)
		return
	}
	v := s.value(a)
	if !known(v) {
		s.dynEval = true
		return
	}
	s.a.runCode(s.c, s.lang, s.word(v))
}

// load handles a module or a file of code named by an argument: a
// literal module is an import, a file is read and run, a URL is code
// fetched from the network, a computed name is dynamic code.
func (s *codeScan) load(k ckind, a *carg) {
	if a == nil || s.closure(a) {
		return // do { ... }
	}
	if a.to == a.from+1 && s.toks[a.from].kind == 'i' && s.lang == "perl" {
		return // require Foo::Bar
	}
	v := s.value(a)
	switch {
	case !known(v):
		s.dynEval = true
		if k == cLoad && v != unk {
			s.pathVal(v, action.AccessRead)
		}
	case strings.Contains(v, "://"):
		s.destVal(v, false)
		s.a.tagf(s.c, TagDownloadExec, s.lang+" code from "+v)
	case k == cLoad, strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~"):
		s.pathVal(v, action.AccessRead)
	}
}

// reflect handles a call of a function named by a value: a literal name
// with arguments the scanner sees is the call it names (reflectNamed);
// else a literal name of a function that runs commands or code is an
// unknown use of that, a computed one is dynamic code.
func (s *codeScan) reflect(i int, args []carg) {
	if s.reflectNamed(i, args) {
		return
	}
	n := 0
	switch s.canonAt(i) {
	case "getattr", "Reflect.get":
		n = 1
	}
	for k := range args {
		if args[k].kw == "" && k != n {
			if v := s.value(&args[k]); known(v) {
				s.unknownUse(reflectNames[v])
			}
		}
	}
	a := posArg(args, n)
	if a == nil || s.closure(a) {
		return
	}
	if name, ok := s.literalName(a); ok {
		s.unknownUse(reflectNames[name]) // a literal name, a symbol included
		return
	}
	v := s.value(a)
	if !known(v) {
		s.dynEval = true
		return
	}
	s.unknownUse(reflectNames[v])
}

// recvPath records the path a method's receiver names.
func (s *codeScan) recvPath(i int, acc action.Access) {
	raw := s.toks[i].s
	v, pathLike := s.recvVal(i)
	if !pathLike && recvAmbiguous[raw[lastSep(raw)-1:]] {
		return
	}
	s.pathVal(v, acc)
}

// recvVal evaluates the receiver of the method at toks[i], and reports
// whether it is a path object (Path(...), Pathname.new(...)).
func (s *codeScan) recvVal(i int) (string, bool) {
	raw := s.toks[i].s
	if raw[0] != '.' {
		head, _ := splitHead(raw)
		if head == raw {
			return unk, false
		}
		v, _ := s.varVal(head)
		if v == "" {
			v = unk
		}
		like := false
		if x := s.vars[head]; x != nil && x.n == 1 && x.from < x.to {
			like = s.pathCtor(x.from)
		}
		return v, like
	}
	if i == 0 {
		return unk, false
	}
	start := s.operandStart(i - 1)
	return s.val(start, i), s.pathCtor(start) || s.toks[start].s == "(" && start+1 < i && s.pathCtor(start+1)
}

// pathCtor reports whether toks[i] starts a path object.
func (s *codeScan) pathCtor(i int) bool {
	if s.toks[i].s == "new" && i+1 < len(s.toks) {
		i++
	}
	switch s.canonAt(i) {
	case "Path", "pathlib.Path", "PurePath", "pathlib.PurePath", "PosixPath", "pathlib.PosixPath", "Path.home",
		"pathlib.Path.home", "Path.cwd", "pathlib.Path.cwd", "Pathname", "Pathname.new":
		return true
	}
	return false
}
