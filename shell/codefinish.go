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
		case strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/inet/tcp/"):
			s.socket = true
		case literalPath(v):
			s.a.use(s.c, s.word(v), action.AccessRead)
		}
	}
	c := s.c
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
	}
}
