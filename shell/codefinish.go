package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// finish records what the whole code does: literal paths and URLs no
// rule consumed, network use it could not place, reverse shells,
// dynamic code.
func (s *codeScan) finish() {
	s.leftovers()
	c := s.c
	if s.tooBig {
		s.a.tagf(c, TagOpaque, s.lang+" code too large to analyse")
	}
	if s.socket && !s.hasNet() {
		s.netAny = true // a socket whose peer the scanner did not see
	}
	if s.netAny {
		s.a.host(c, Word{}, "", false, false)
	}
	if s.hasNet() {
		c.netCode = true
	}
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

// hasNet reports whether the code recorded a destination of its own.
func (s *codeScan) hasNet() bool {
	for _, d := range s.a.eff.Network[min(s.nmark, len(s.a.eff.Network)):] {
		if d.Program == progName(s.c) {
			return true
		}
	}
	return false
}

// leftovers records the string values no rule consumed: a URL is a
// destination, an absolute or home path a read (the code may hand it to
// a function the tables do not describe). A string is judged with the
// expression it is part of ("/.ssh/" + name is a path partly known).
func (s *codeScan) leftovers() {
	for i, t := range s.toks {
		if t.kind != 's' || s.used[i] {
			continue
		}
		v := s.strVal(i)
		from, to := s.exprAround(i)
		if to-from > 1 {
			v = s.val(from, to)
			for j := from; j < to; j++ {
				if s.toks[j].kind == 's' {
					s.used[j] = true
				}
			}
		}
		s.leftover(v)
	}
}

// leftover judges one leftover value.
func (s *codeScan) leftover(v string) {
	switch {
	case strings.Contains(v, "://") && !strings.ContainsAny(v, " \n"):
		s.destVal(v, false)
	case strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/"):
		s.socket = true
	case s.lang == "awk" && isInetPath(v):
		s.inet(v)
	case literalPath(v):
		s.a.use(s.c, s.word(v), action.AccessRead)
	case !known(v) && s.sensitiveRoot(strings.SplitN(v, unk, 2)[0]):
		s.a.use(s.c, valWord(v), action.AccessRead)
	}
}

// exprAround returns the concatenation the string at toks[i] is an
// operand of ("/.ssh/" + name, home + "/x").
func (s *codeScan) exprAround(i int) (int, int) {
	if s.lang == "awk" {
		return i, i + 1
	}
	from := i
	for from > 1 {
		if _, n, ok := s.concatOp(from-1, len(s.toks)); !ok || n != 1 {
			break
		}
		from = s.operandStart(from - 2)
	}
	to := i + 1
	for to < len(s.toks) {
		_, n, ok := s.concatOp(to, len(s.toks))
		if !ok || n != 1 || to+1 >= len(s.toks) {
			break
		}
		to = s.operandEnd(to+1, len(s.toks))
	}
	return from, to
}

// operandStart returns the first token of the operand ending at toks[j].
func (s *codeScan) operandStart(j int) int {
	for j > 0 {
		t := s.toks[j]
		switch {
		case t.kind == 'p' && (t.s == ")" || t.s == "]" || t.s == "}" && s.lang == "perl"):
			o := s.matchBack(j)
			if o > 0 && (s.toks[o-1].kind == 'i' || s.toks[o-1].s == ")" || s.toks[o-1].s == "]") {
				j = o - 1
				continue
			}
			return o
		case t.kind == 'i' && t.s[0] == '.':
			j--
			continue
		}
		return j
	}
	return 0
}

// sensitiveRoot reports whether a known path prefix is below the home
// directory or a system directory: a path built on it is recorded even
// when the rest is unknown.
func (s *codeScan) sensitiveRoot(p string) bool {
	if strings.HasPrefix(p, "~/") || s.a.opt.Home != "" && strings.HasPrefix(p, s.a.opt.Home+"/") {
		return true
	}
	for _, r := range [...]string{"/etc/", "/root/", "/proc/", "/sys/", "/dev/", "/var/", "/boot/", "/usr/", "/home/"} {
		if strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
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
	if len(v) < 2 || len(v) > 4096 || strings.ContainsAny(v, " \n\t\"'\x00") {
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
