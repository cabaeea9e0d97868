package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// apply interprets one call found in inline code.
func (s *codeScan) apply(k ckind, args []carg, paren bool) {
	var a0, a1 carg
	if len(args) > 0 {
		a0 = args[0]
	}
	if len(args) > 1 {
		a1 = args[1]
	}
	switch k {
	case cShell:
		s.shellArg(a0)
	case cArgv, cArgvL:
		s.argv(k, a0, args)
	case cOpen:
		s.open(a0, a1)
	case cRead:
		s.path(a0, action.AccessRead)
	case cWrite:
		s.path(a0, action.AccessWrite)
	case cDelete:
		s.path(a0, action.AccessDelete)
	case cCopy, cMove:
		acc := action.AccessRead
		if k == cMove {
			acc |= action.AccessDelete
		}
		s.path(a0, acc)
		s.path(a1, action.AccessWrite)
	case cEval:
		s.eval(a0, paren)
	case cDecode:
		s.decode = true
	case cSocket:
		s.socket = true
	case cConnect:
		s.connect(args)
	case cListen:
		s.socket, s.listen = true, true
		s.connect(args)
	case cDup:
		s.dup = true
	case cHost:
		if a0.isStr {
			s.consume(a0)
			s.a.host(s.c, s.word(a0.str), "", false, false)
		}
	case cPerlOpen:
		s.perlOpen(args)
	}
}

// shellArg handles a shell command argument.
func (s *codeScan) shellArg(a carg) {
	switch {
	case a.isStr:
		s.consume(a)
		s.shell(a.str)
	case a.isDec:
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded shell command")
		s.shell(a.decoded)
	default:
		s.dynShell = true
	}
}

// argv handles subprocess-style calls: an argv list, or a string that is
// a program (or shell code with shell=True or shell syntax).
func (s *codeScan) argv(k ckind, a0 carg, args []carg) {
	switch {
	case a0.isList:
		s.consume(a0)
		argv := a0.list
		if len(args) > 1 && args[1].isList {
			s.consume(args[1])
			argv = append(argv[:len(argv):len(argv)], args[1].list...)
		}
		s.run(argv)
	case a0.isStr:
		s.consume(a0)
		argv := []string{a0.str}
		rest := args[1:]
		if k == cArgvL && len(rest) > 0 {
			rest = rest[1:]
		}
		for _, x := range rest {
			switch {
			case x.isStr:
				s.consume(x)
				argv = append(argv, x.str)
			case x.isList:
				s.consume(x)
				argv = append(argv, x.list...)
			}
		}
		if len(argv) == 1 && (strings.ContainsAny(a0.str, " |;&<>$`") || s.hasShellTrue()) {
			s.shell(a0.str)
			return
		}
		s.run(argv)
	case a0.isDec:
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded command")
		s.shell(a0.decoded)
	default:
		s.dynShell = true
	}
}

// open handles open(path, mode).
func (s *codeScan) open(a0, a1 carg) {
	acc := action.AccessRead
	if a1.isStr {
		if strings.ContainsAny(a1.str, "wax") {
			acc = action.AccessWrite
		}
		if strings.Contains(a1.str, "+") {
			acc = action.AccessRead | action.AccessWrite
		}
	}
	s.path(a0, acc)
}

// perlOpen handles open(FH, MODE, PATH) and open(FH, "MODEPATH").
func (s *codeScan) perlOpen(args []carg) {
	if len(args) < 2 {
		return
	}
	var mode, target carg
	if len(args) >= 3 && args[1].isStr {
		mode, target = args[1], args[2]
		s.consume(mode)
	} else {
		target = args[1]
		if !target.isStr {
			return
		}
		spec := strings.TrimSpace(target.str)
		m := strings.TrimLeft(spec, "+<>|- ")
		mode = carg{str: spec[:len(spec)-len(m)], isStr: true}
		if strings.HasSuffix(m, "|") {
			mode.str = "-|"
			m = strings.TrimSuffix(m, "|")
		}
		target.str = strings.TrimSpace(m)
	}
	switch md := strings.TrimSpace(mode.str); {
	case strings.Contains(md, "|"):
		s.shellArg(target)
	case strings.Contains(md, ">"):
		acc := action.AccessWrite
		if strings.Contains(md, "+") {
			acc |= action.AccessRead
		}
		s.path(target, acc)
	default:
		s.path(target, action.AccessRead)
	}
}

// eval handles exec/eval of code in the same language.
func (s *codeScan) eval(a carg, paren bool) {
	switch {
	case a.isStr:
		s.consume(a)
		s.a.runCode(s.c, s.lang, s.word(a.str))
	case a.isDec:
		s.a.tagf(s.c, TagDecodedExec, s.lang+" decoded code")
		s.a.tagf(s.c, TagObfuscation, "base64")
		w := s.word(a.decoded)
		w.flags |= wDecoded
		s.a.runCode(s.c, s.lang, w)
	case paren || s.lang == "perl" || s.lang == "ruby":
		s.dynEval = true
	}
}

// connect records host and port literals of a connection.
func (s *codeScan) connect(args []carg) {
	s.socket = true
	host, port := "", ""
	take := func(v string, num bool) {
		switch {
		case num || isDigits(v):
			if port == "" {
				port = v
			}
		case host == "":
			host = v
		}
	}
	for _, x := range args {
		switch {
		case x.isStr:
			s.consume(x)
			take(x.str, false)
		case x.num != "":
			take(x.num, true)
		case x.isList:
			s.consume(x)
			for _, v := range x.list {
				take(v, false)
			}
		}
	}
	if host == "" && port == "" {
		return
	}
	if h, p := hostPort(host); p != "" && port == "" {
		host, port = h, p
	}
	if s.listen {
		s.a.addNet(s.c, NetDest{Program: progName(s.c), Host: strings.ToLower(host), Port: port, Listen: true})
		return
	}
	s.a.host(s.c, s.word(host), port, false, false)
}
