package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// awk handles awk's redirections: print > FILE, CMD | getline, print |
// CMD, getline < FILE, and |& coprocesses. Their targets are expressions
// (juxtaposed strings and fields); a computed command is dynamic, a
// computed file unknown.
func (s *codeScan) awk() {
	ts := s.toks
	printing := false
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.nl || t.kind == 'p' && (t.s == ";" || t.s == "{" || t.s == "}") {
			printing = false
		}
		if t.kind == 'i' && (t.s == "print" || t.s == "printf") {
			printing = true
		}
		if t.kind != 'p' {
			continue
		}
		switch {
		case t.s == "|" && i+1 < len(ts) && ts[i+1].s == "&":
			s.dup = true // gawk's |& coprocess: two-way I/O with a command or socket
			switch {
			case i+2 < len(ts) && ts[i+2].s == "getline":
				s.awkCoproc(s.awkStart(i), i)
			case printing && i+2 < len(ts):
				s.awkCoproc(i+2, s.awkEnd(i+2))
			}
			i++
		case t.s == "|" && i+1 < len(ts) && ts[i+1].s == "getline":
			s.awkShell(s.awkStart(i), i)
		case t.s == "|" && printing && i+1 < len(ts):
			s.awkShell(i+1, s.awkEnd(i+1))
		case t.s == ">" && printing && i+1 < len(ts):
			j := i + 1
			if ts[j].s == ">" && j+1 < len(ts) {
				j++
			}
			s.awkPath(j, s.awkEnd(j), action.AccessWrite)
			i = j
		case t.s == "<" && i > 0 && i+1 < len(ts) && (ts[i-1].s == "getline" || i > 1 && ts[i-2].s == "getline"):
			s.awkPath(i+1, s.awkEnd(i+1), action.AccessRead)
		}
	}
}

// awkEnd returns the end of a redirection target starting at toks[j].
func (s *codeScan) awkEnd(j int) int {
	depth := 0
	for k := j; k < len(s.toks); k++ {
		t := s.toks[k]
		if k > j && t.nl {
			return k
		}
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case "(", "[":
			depth++
		case ")", "]":
			if depth--; depth < 0 {
				return k
			}
		case ";", "}", "{", "|", ">", "<", ",":
			if depth == 0 {
				return k
			}
		}
	}
	return len(s.toks)
}

// awkStart returns the start of the command before "| getline" at
// toks[i].
func (s *codeScan) awkStart(i int) int {
	depth := 0
	for k := i - 1; k >= 0; k-- {
		t := s.toks[k]
		if t.kind == 'p' {
			switch t.s {
			case ")", "]":
				depth++
			case "(", "[":
				if depth--; depth < 0 {
					return k + 1
				}
			case ";", "{", "}", "=", ",":
				if depth == 0 {
					return k + 1
				}
			}
		}
		if t.nl {
			return k
		}
	}
	return 0
}

// awkShell records the command of a pipe.
func (s *codeScan) awkShell(from, to int) {
	if from >= to {
		s.dynShell = true
		return
	}
	s.markUsed(from, to)
	s.shellVal(s.val(from, to))
}

// awkCoproc records the other end of a coprocess: a gawk socket file
// or a command.
func (s *codeScan) awkCoproc(from, to int) {
	if v := s.val(from, to); from < to && isInetPath(v) {
		s.markUsed(from, to)
		s.inet(v)
		return
	}
	s.awkShell(from, to)
}

// awkPath records the file of a redirection.
func (s *codeScan) awkPath(from, to int, acc action.Access) {
	if from >= to {
		s.pathVal(unk, acc)
		return
	}
	s.markUsed(from, to)
	if v := s.val(from, to); isInetPath(v) {
		s.inet(v) // gawk's /inet/tcp/... is a socket
	} else {
		s.pathVal(v, acc)
	}
}

// markUsed consumes the strings of toks[from:to].
func (s *codeScan) markUsed(from, to int) {
	for j := from; j < to; j++ {
		if s.toks[j].kind == 's' {
			s.used[j] = true
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
