package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// finish records what the whole code does: literal paths and URLs no
// rule consumed, reverse shells, dynamic code.
func (s *codeScan) finish() {
	for i, t := range s.toks {
		if t.kind != 's' || s.used[i] {
			continue
		}
		v := t.s
		switch {
		case strings.Contains(v, "://") && !strings.ContainsAny(v, " \n"):
			s.a.url(s.c, s.word(v), false)
		case strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/"):
			s.socket = true
		case s.lang == "awk" && isInetPath(v):
			s.inet(v)
		case literalPath(v):
			s.a.use(s.c, s.word(v), action.AccessRead)
		}
	}
	c := s.c
	if s.forkLoop() {
		s.a.tagf(c, TagForkBomb, s.lang+" fork in a loop")
	}
	switch {
	case s.socket && (s.spawn || s.dup) && s.listen:
		s.a.tagf(c, TagBindShell, s.lang)
	case s.socket && (s.spawn || s.dup):
		s.a.tagf(c, TagReverseShell, s.lang)
	}
	if !s.dynEval && !s.dynShell {
		return
	}
	switch {
	case s.decode:
		s.a.tagf(c, TagDecodedExec, s.lang+" decoded code")
		s.a.tagf(c, TagObfuscation, s.lang+" decoding")
	case s.dynShell:
		s.a.tagf(c, TagEval, s.lang+" dynamic shell command")
	default:
		s.a.tagf(c, TagEval, s.lang+" dynamic code")
	}
}

// forkLoop reports whether the code forks inside a loop with no exit in
// sight: "fork while fork", "while True: os.fork()", "loop { fork }".
func (s *codeScan) forkLoop() bool {
	fork, loop := 0, false
	for _, t := range s.toks {
		if t.kind != 'i' {
			continue
		}
		switch {
		case t.s == "fork" || strings.HasSuffix(t.s, ".fork") || t.s == "pcntl_fork":
			fork++
		case t.s == "while" || t.s == "loop" || t.s == "until":
			loop = true
		case t.s == "exit" || t.s == "break" || t.s == "wait" || t.s == "waitpid" || strings.HasSuffix(t.s, ".wait"):
			return false
		}
	}
	return fork > 0 && loop
}

// literalPath reports whether a string literal in code looks like an
// absolute or home path.
func literalPath(v string) bool {
	if len(v) < 2 || len(v) > 4096 || strings.ContainsAny(v, " \n\t\"'") {
		return false
	}
	if !(v[0] == '/' || strings.HasPrefix(v, "~/")) {
		return false
	}
	for i := 1; i < len(v); i++ {
		if alnum(v[i]) || v[i] == '.' {
			return true
		}
	}
	return false
}

// awk handles awk's redirections: print > "file", "cmd" | getline,
// print | "cmd", getline < "file", and system() of a computed string.
func (s *codeScan) awk() {
	ts := s.toks
	printing := false
	for i, t := range ts {
		if t.kind == 'i' && (t.s == "print" || t.s == "printf") {
			printing = true
		}
		if t.kind == 'p' && (t.s == ";" || t.s == "{" || t.s == "}") {
			printing = false
		}
		if t.kind != 's' || s.used[i] || i == 0 {
			continue
		}
		prev := ts[i-1]
		var next ctok
		if i+1 < len(ts) {
			next = ts[i+1]
		}
		switch {
		case next.s == "|" && i+2 < len(ts) && ts[i+2].s == "getline":
			s.used[i] = true
			s.shell(t.s)
		case prev.s == "|" && printing:
			s.used[i] = true
			s.shell(t.s)
		case prev.s == ">" && printing:
			s.used[i] = true
			s.a.use(s.c, s.word(t.s), action.AccessWrite)
		case prev.s == "<" && i >= 2 && ts[i-2].s == "getline":
			s.used[i] = true
			s.a.use(s.c, s.word(t.s), action.AccessRead)
		}
	}
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].s == "system" && ts[i+1].s == "(" && (i+2 >= len(ts) || ts[i+2].kind != 's') {
			s.dynShell = true
		}
		if ts[i].kind == 'p' && ts[i].s == "|" && ts[i+1].kind == 'p' && ts[i+1].s == "&" {
			s.dup = true // gawk's |& coprocess: two-way I/O with a command or socket
		}
	}
}

// isInetPath reports whether v is one of gawk's special socket files:
// /inet/tcp/LPORT/HOST/RPORT (also /inet4, /inet6, udp).
func isInetPath(v string) bool {
	for _, p := range [...]string{"/inet/", "/inet4/", "/inet6/"} {
		if rest, ok := strings.CutPrefix(v, p); ok {
			return strings.HasPrefix(rest, "tcp/") || strings.HasPrefix(rest, "udp/")
		}
	}
	return false
}

// inet records the socket a gawk special file opens: a connection to
// HOST:RPORT, or a listening socket on LPORT when HOST and RPORT are 0.
func (s *codeScan) inet(v string) {
	s.socket = true
	parts := strings.Split(v, "/")
	if len(parts) < 6 {
		return
	}
	lport, host, rport := parts[3], parts[4], parts[5]
	if (host == "0" || host == "") && (rport == "0" || rport == "") {
		s.listen = true
		s.a.addNet(s.c, NetDest{Program: progName(s.c), Port: lport, Listen: true})
		return
	}
	s.a.host(s.c, s.word(host), rport, false, false)
}
