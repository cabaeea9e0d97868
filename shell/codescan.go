package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// codeScan is the state of one inline-code analysis.
type codeScan struct {
	a    *analyzer
	c    *Call
	lang string
	toks []ctok
	used []bool // string tokens consumed by a rule

	socket, listen, spawn, dup, decode, dynEval, dynShell bool
}

// carg summarises one call argument.
type carg struct {
	str     string   // single string literal (or a concatenation of them)
	isStr   bool     // str is set
	list    []string // list/tuple of literals (strings and numbers)
	isList  bool     // list is set
	num     string   // number literal
	decoded string   // decodefn('literal'), decoded
	isDec   bool     // decoded is set
	idx     []int    // string token indexes
}

// scan walks the tokens for calls the language table knows.
func (s *codeScan) scan() {
	table := codeCalls[s.lang]
	for i := 0; i < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind == 'b' && s.lang != "node" {
			s.used[i] = true
			s.shell(t.s)
			continue
		}
		if t.kind != 'i' || table == nil {
			continue
		}
		k, ok := table[t.s]
		if !ok {
			if j := lastSep(t.s); j > 0 {
				k, ok = table["."+t.s[j:]]
			}
		}
		if !ok {
			continue
		}
		args, paren := s.args(i + 1)
		s.apply(k, args, paren)
	}
	if s.lang == "awk" {
		s.awk()
	}
}

// lastSep returns the index after the last member separator in id.
func lastSep(id string) int {
	j := strings.LastIndexAny(id, ".:>")
	if j < 0 {
		return 0
	}
	return j + 1
}

// args parses the arguments of a call starting at toks[i].
func (s *codeScan) args(i int) ([]carg, bool) {
	if i >= len(s.toks) {
		return nil, false
	}
	if s.toks[i].s != "(" || s.toks[i].kind != 'p' {
		// perl/ruby/php without parentheses: string literals separated by commas.
		var out []carg
		for i < len(s.toks) && (s.toks[i].kind == 's' || s.toks[i].kind == 'b') {
			out = append(out, carg{str: s.toks[i].s, isStr: true, idx: []int{i}})
			if i+1 < len(s.toks) && s.toks[i+1].s == "," {
				i += 2
				continue
			}
			break
		}
		return out, false
	}
	var out []carg
	depth, start := 0, i+1
	for j := i; j < len(s.toks); j++ {
		t := s.toks[j]
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ",":
			if depth == 1 {
				out = append(out, s.arg(start, j))
				start = j + 1
			}
		}
		if depth == 0 {
			if j > start {
				out = append(out, s.arg(start, j))
			}
			return out, true
		}
	}
	return out, true
}

// arg summarises toks[from:to].
func (s *codeScan) arg(from, to int) carg {
	ts := s.toks[from:to]
	var a carg
	switch {
	case len(ts) == 0:
	case allStrings(ts):
		for k, t := range ts {
			if t.kind == 's' {
				a.str += t.s
				a.idx = append(a.idx, from+k)
			}
		}
		a.isStr = true
	case len(ts) == 1 && ts[0].kind == 'n':
		a.num = ts[0].s
	case ts[0].kind == 'p' && (ts[0].s == "[" || ts[0].s == "(") && ts[len(ts)-1].kind == 'p':
		a.isList = true
		for k, t := range ts[1 : len(ts)-1] {
			switch {
			case t.kind == 's' || t.kind == 'n':
				a.list = append(a.list, t.s)
				if t.kind == 's' {
					a.idx = append(a.idx, from+1+k)
				}
			case t.kind == 'p' && t.s == ",":
			default:
				a.isList = false
			}
		}
	case ts[0].kind == 'i' && len(ts) >= 4 && ts[1].s == "(" && ts[2].kind == 's':
		if codeCalls[s.lang][ts[0].s] == cDecode || strings.HasSuffix(ts[0].s, "b64decode") {
			if d, ok := decodeBase("base64", ts[2].s); ok {
				a.decoded, a.isDec = d, true
			}
		}
	}
	return a
}

// allStrings reports whether tokens are string literals joined by + or .
func allStrings(ts []ctok) bool {
	for k, t := range ts {
		if k%2 == 0 && t.kind != 's' || k%2 == 1 && !(t.kind == 'p' && (t.s == "+" || t.s == ".")) {
			return false
		}
	}
	return len(ts)%2 == 1
}

// word makes a known word.
func (s *codeScan) word(v string) Word { return Word{Value: v, Known: true} }

// consume marks an argument's strings as handled.
func (s *codeScan) consume(a carg) {
	for _, i := range a.idx {
		s.used[i] = true
	}
}

// shell analyses a shell command string found in the code.
func (s *codeScan) shell(code string) {
	for _, f := range strings.Fields(code) {
		if isShellName(lastElem(f)) {
			s.spawn = true
			break
		}
	}
	s.a.runShell(s.c, s.word(code))
}

// run analyses an argv found in the code.
func (s *codeScan) run(argv []string) {
	if len(argv) == 0 {
		return
	}
	if isShellName(lastElem(argv[0])) {
		s.spawn = true
	}
	ws := make([]Word, len(argv))
	for i, v := range argv {
		ws[i] = s.word(v)
	}
	a := s.a
	if !a.enter() {
		return
	}
	a.runArgv(ws, s.c.stdin, len(a.wsrc))
	a.depth--
}

// hasShellTrue reports whether the code sets shell=True.
func (s *codeScan) hasShellTrue() bool {
	for i := 0; i+2 < len(s.toks); i++ {
		if s.toks[i].s == "shell" && s.toks[i+1].s == "=" && s.toks[i+2].s == "True" {
			return true
		}
	}
	return false
}

// path records a literal path (or URL) the code touches.
func (s *codeScan) path(a carg, acc action.Access) {
	if !a.isStr {
		return
	}
	s.consume(a)
	if strings.Contains(a.str, "://") {
		s.a.url(s.c, s.word(a.str), acc&action.AccessWrite != 0)
		return
	}
	s.a.use(s.c, s.word(a.str), acc)
}
