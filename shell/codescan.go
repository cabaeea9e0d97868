package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// codeScan is the state of one inline-code analysis.
type codeScan struct {
	a     *analyzer
	c     *Call
	lang  string
	toks  []ctok
	used  []bool   // string tokens a rule consumed
	skip  []bool   // names that are not uses (import statements, assignment targets)
	canon []string // canonical names of identifier tokens ("": the token itself)
	// shadow is the code lexed a second way where a "/" is ambiguous:
	// scanned for calls, but it assigns and imports nothing.
	shadow [2]int

	vars     map[string]*cvar
	varOrder []string          // variable names in the order they are first assigned
	alias    map[string]string // local name → module or member
	stars    []string          // modules whose names are imported whole
	clients  map[string]bool   // variables holding network clients
	codeArgs []Word            // the arguments after the code (sys.argv[1:])
	envSeen  map[string]bool
	depth    int   // expression evaluation depth
	collect  []int // string tokens the current evaluation used (nil: not collecting)
	work     int   // tokens evaluated, bounded
	nmark    int   // len(Effects.Network) when the scan started

	socket, listen, spawn, dup, decode, dynEval, dynShell bool
	netAny, prints, varsUnknown, tooBig                   bool
}

// carg is one argument of a call: toks[from:to], with its keyword
// (name=value, name: value, name => value) when it has one.
type carg struct {
	from, to int
	kw       string
}

// maxCodeWork bounds the tokens evaluated in one code (nested
// expressions are evaluated once per enclosing call).
const maxCodeWork = 1 << 18

// newCodeScan prepares the analysis of code for call c.
func newCodeScan(a *analyzer, c *Call, lang, code string) *codeScan {
	toks, full, shadow := lexCode(code, lang)
	s := &codeScan{a: a, c: c, lang: lang, toks: toks, tooBig: full, shadow: shadow,
		used: make([]bool, len(toks)), skip: make([]bool, len(toks)),
		vars: map[string]*cvar{}, alias: map[string]string{}, clients: map[string]bool{}, envSeen: map[string]bool{},
		nmark: len(a.eff.Network)}
	for k, w := range c.Args {
		if w.Known && w.Value == code {
			s.codeArgs = codeArgs(lang, c.Args[k+1:])
			break
		}
		if m := flagModule(lang, c.Args, k); m != "" {
			s.stars = append(s.stars, m)
		}
	}
	return s
}

// codeArgs returns the arguments the code sees after it (sys.argv[1:],
// @ARGV): python passes every word on; node, perl and ruby go on taking
// options until "--" or the first operand, and an option may take the
// word after it, so leading options leave the arguments unknown.
func codeArgs(lang string, rest []Word) []Word {
	if lang == "python" || len(rest) == 0 {
		return rest
	}
	if rest[0].Known && rest[0].Value == "--" {
		return rest[1:]
	}
	if !rest[0].Known || strings.HasPrefix(rest[0].Value, "-") {
		return nil
	}
	return rest
}

// argvChanged reports code that changes its own argument list (shift
// @ARGV, sys.argv.pop(), process.argv.splice(...), sys.argv[1] = x):
// the arguments at an index are then unknown.
func (s *codeScan) argvChanged() bool {
	for i, t := range s.toks {
		if t.kind != 'i' {
			continue
		}
		switch t.s {
		case "shift", "unshift", "splice", "pop", "del", "@ARGV", "$argv", "ARGV.shift", "ARGV.pop", "ARGV.replace",
			"ARGV.clear", "ARGV.unshift":
			return true
		}
		cn := s.canonAt(i)
		if cn != "sys.argv" && cn != "process.argv" && !strings.HasPrefix(cn, "sys.argv.") && !strings.HasPrefix(cn, "process.argv.") {
			continue
		}
		if m := cn[lastSep(cn):]; m != "argv" {
			return true // sys.argv.pop, process.argv.splice
		}
		if _, _, any := s.assignOp(i); any {
			return true // sys.argv = [...], sys.argv[1] = x
		}
	}
	return false
}

// flagModule returns the module a command-line flag loads before the
// code runs: perl -MLWP::Simple, ruby -rnet/http, node -r mod.
func flagModule(lang string, args []Word, k int) string {
	w := args[k]
	if !w.Known {
		return ""
	}
	flag := map[string]string{"perl": "-M", "ruby": "-r", "node": "-r"}[lang]
	if flag == "" || !strings.HasPrefix(w.Value, flag) {
		return ""
	}
	m := w.Value[len(flag):]
	if m == "" && k+1 < len(args) {
		m = args[k+1].Value
	}
	if i := strings.IndexAny(m, "=("); i >= 0 {
		m = m[:i]
	}
	return strings.TrimPrefix(m, "-")
}

// analyse analyses the code: names first, then calls, then what is left.
func (s *codeScan) analyse() {
	s.assignments()
	s.imports()
	s.canonicalise()
	if s.codeArgs != nil && s.argvChanged() {
		s.codeArgs = nil
	}
	s.dynamicNames()
	s.scan()
	s.refs()
	s.sources()
	s.finish()
}

// scan walks the tokens for calls the language's tables know.
func (s *codeScan) scan() {
	for i := 0; i < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind == 'b' && s.lang != "node" {
			s.used[i] = true
			s.shellVal(s.strVal(i))
			continue
		}
		if t.kind != 'i' || s.skip[i] {
			continue
		}
		k, _ := s.lookup(i)
		if k == 0 {
			continue
		}
		if args, ok := s.callArgs(i); ok {
			s.apply(k, i, args)
		}
	}
	if s.lang == "awk" {
		s.awk()
	}
}

// lookup returns what the call at toks[i] does, and whether its name
// matched exactly (not by its last member on an unknown receiver).
func (s *codeScan) lookup(i int) (ckind, bool) {
	cn := s.canonAt(i)
	if k := s.clientCall(cn); k != 0 {
		return k, true
	}
	if k := s.lookupName(cn); k != 0 && cn[0] != '.' {
		return k, true
	}
	raw := s.toks[i].s
	if j := lastSep(raw); j > 0 && s.suffixOK(i) {
		return codeCalls[s.lang]["."+raw[j:]], false
	}
	if head, _ := splitHead(cn); methodModules[head] && lastSep(cn) > 0 {
		return codeCalls[s.lang]["."+cn[lastSep(cn):]], true // fs.writeFileSync is .writeFileSync
	}
	return 0, false
}

// lookupName looks a canonical name up in the language's table, and a
// bare name in the modules imported whole.
func (s *codeScan) lookupName(cn string) ckind {
	table := codeCalls[s.lang]
	if k, ok := table[cn]; ok {
		return k
	}
	if rest, ok := strings.CutPrefix(cn, "base::"); ok && s.lang == "r" {
		cn = rest // R's base::system is system
		if k, ok := table[cn]; ok {
			return k
		}
	}
	if strings.ContainsAny(cn, ".:>") || cn == "" {
		return 0
	}
	sep := "."
	if s.lang == "perl" || s.lang == "r" {
		sep = "::"
	}
	for _, m := range s.stars {
		if k, ok := table[m+sep+cn]; ok {
			return k
		}
	}
	return 0
}

// clientCall returns what a method of a network client does.
func (s *codeScan) clientCall(cn string) ckind {
	head, rest := splitHead(cn)
	if j := lastSep(cn); j > 0 && rest != "" && head != "<client>" && !s.clients[head] {
		// LWP::UserAgent->new->get: a method of a client just made.
		k := j - 1
		for k > 0 && strings.IndexByte(".:->", cn[k-1]) >= 0 {
			k--
		}
		if s.lookupName(cn[:k]) == cClient {
			head, rest = "<client>", cn[k:]
		}
	}
	if rest == "" || head != "<client>" && !s.clients[head] {
		return 0
	}
	m := strings.TrimLeft(rest, ".-:>")
	if strings.ContainsAny(m, ".:>") {
		return 0 // s.headers.update
	}
	if k, ok := clientMethods[m]; ok {
		return k
	}
	return cPure
}

// methodModules are modules whose functions the tables describe by
// their method names (node's fs.readFileSync is .readFileSync).
var methodModules = map[string]bool{"fs": true, "fs/promises": true, "graceful-fs": true, "fs-extra": true}

// lastSep returns the index after the last member separator in id.
func lastSep(id string) int {
	j := strings.LastIndexAny(id, ".:>")
	if j < 0 {
		return 0
	}
	return j + 1
}

// suffixOK reports whether a method may be matched by its name alone:
// its receiver is not a module the code imports (matched by its full
// name) nor a literal or a variable holding one.
func (s *codeScan) suffixOK(i int) bool {
	raw := s.toks[i].s
	if raw[0] == '.' {
		if i == 0 {
			return true
		}
		p := s.toks[i-1]
		return p.kind != 'r' && p.kind != 's' && p.kind != 'n' && s.canon[i] == ""
	}
	head, _ := splitHead(raw)
	if _, ok := s.alias[head]; ok {
		return false
	}
	if v := s.vars[head]; v != nil && v.n == 1 && v.from < v.to {
		t := s.toks[v.from]
		return t.kind == 'i' || t.s == "("
	}
	return true
}

// callArgs returns the arguments of a call at toks[i]; ok is false when
// the name is not called there.
func (s *codeScan) callArgs(i int) ([]carg, bool) {
	if i+1 >= len(s.toks) {
		return nil, s.bareCall(i)
	}
	n := s.toks[i+1]
	switch {
	case n.kind == 'p' && n.s == "(":
		return s.cargs(s.argRanges(i+1, len(s.toks))), true
	case n.kind == 's' && s.lang == "node" && strings.HasSuffix(s.toks[i].s, "$"):
		return []carg{{from: i + 1, to: i + 2}}, true // Bun.$`cmd`
	case !s.bareCall(i):
		return nil, false
	}
	end := s.stmtEnd(i + 1)
	var out [][2]int
	start, depth := i+1, 0
	for j := i + 1; j < end; j++ {
		switch t := s.toks[j]; {
		case t.kind == 'p' && (t.s == "(" || t.s == "[" || t.s == "{"):
			depth++
		case t.kind == 'p' && (t.s == ")" || t.s == "]" || t.s == "}"):
			depth--
		case depth == 0 && t.kind == 'p' && t.s == ",":
			out = append(out, [2]int{start, j})
			start = j + 1
		case depth == 0 && t.kind == 'i' && (t.s == "do" || t.s == "then"):
			end = j
		}
	}
	if end > start {
		out = append(out, [2]int{start, end})
	}
	return s.cargs(out), true
}

// bareCall reports whether toks[i] is called without parentheses (perl,
// ruby, lua, php's include), or stands alone as a statement (system;).
func (s *codeScan) bareCall(i int) bool {
	switch s.lang {
	case "perl", "ruby", "lua", "php":
	default:
		return false
	}
	if i+1 >= len(s.toks) || s.toks[i+1].nl {
		return s.lang == "ruby" || s.lang == "perl"
	}
	n := s.toks[i+1]
	switch {
	case s.lang == "lua":
		return n.kind == 's' || n.s == "{"
	case s.lang == "php":
		return n.kind == 's' || n.kind == 'i' && n.s[0] == '$'
	case n.kind == 's' || n.kind == 'b' || n.kind == 'n':
		return true
	case n.kind == 'i':
		switch n.s {
		case "if", "unless", "or", "and", "do", "then", "end", "while", "until", "rescue", "x", "eq", "ne", "lt", "gt", "cmp":
			return false
		}
		return n.s[0] != '.'
	}
	return n.kind == 'p' && (n.s == ";" || n.s == "[" || n.s == ":" || n.s == "\\" || n.s == "@" || n.s == "%" ||
		n.s == "*" && s.lang == "ruby" || n.s == "{" && s.lang == "perl")
}

// cargs turns argument ranges into arguments, with their keywords.
func (s *codeScan) cargs(rs [][2]int) []carg {
	out := make([]carg, 0, len(rs))
	for _, r := range rs {
		a := carg{from: r[0], to: r[1]}
		if r[1]-r[0] >= 2 {
			k, n := s.toks[r[0]], s.toks[r[0]+1]
			switch {
			case k.kind == 'i' && n.kind == 'p' && n.s == "=" && (s.lang == "python" || s.lang == "r") &&
				(r[0]+2 >= r[1] || s.toks[r[0]+2].s != "="):
				a.kw, a.from = k.s, r[0]+2
			case k.kind == 'i' && n.kind == 'p' && n.s == ":" && (s.lang == "ruby" || s.lang == "php"):
				a.kw, a.from = k.s, r[0]+2
			case (k.kind == 'i' || k.kind == 's') && n.kind == 'p' && n.s == "=>" && s.lang == "perl":
				a.kw, a.from = k.s, r[0]+2
			}
		}
		out = append(out, a)
	}
	return out
}

// pos returns the n-th positional argument (nil when there is none).
func posArg(args []carg, n int) *carg {
	for k := range args {
		if args[k].kw != "" {
			continue
		}
		if n == 0 {
			return &args[k]
		}
		n--
	}
	return nil
}

// kwArg returns the first argument with one of the keywords.
func kwArg(args []carg, names ...string) *carg {
	for k := range args {
		for _, n := range names {
			if strings.EqualFold(args[k].kw, n) {
				return &args[k]
			}
		}
	}
	return nil
}

// argOr returns the n-th positional argument, else a keyword one.
func argOr(args []carg, n int, names ...string) *carg {
	if a := posArg(args, n); a != nil {
		return a
	}
	return kwArg(args, names...)
}

// value evaluates an argument and consumes the strings its value is made
// of (not those of calls the evaluator does not know: they are judged
// where they stand).
func (s *codeScan) value(a *carg) string {
	if a == nil {
		return unk
	}
	outer := s.collect
	s.collect = []int{}
	v := s.val(a.from, a.to)
	for _, j := range s.collect {
		s.used[j] = true
	}
	s.collect = append(outer, s.collect...)
	if outer == nil {
		s.collect = nil
	}
	return v
}

// closure reports whether an argument is code given in place: a closure
// or a block (callbacks, eval { ... }), scanned where it stands.
func (s *codeScan) closure(a *carg) bool {
	if a == nil || a.from >= a.to {
		return false
	}
	t := s.toks[a.from]
	return t.kind == 'p' && t.s == "{" || t.kind == 'i' && (t.s == "function" || t.s == "fn" || t.s == "lambda" ||
		t.s == "static" || t.s == "sub" || t.s == "proc")
}

// word makes a known word.
func (s *codeScan) word(v string) Word { return Word{Value: v, Known: true} }

// path records a path (or a URL) the code touches; an unknown or partly
// known one is recorded as the analysis records unresolved paths.
func (s *codeScan) path(a *carg, acc action.Access) {
	s.pathVal(s.value(a), acc)
}

// pathVal records a path value.
func (s *codeScan) pathVal(v string, acc action.Access) {
	if strings.Contains(v, "://") && !strings.HasPrefix(v, "file://") {
		s.destVal(v, acc&action.AccessWrite != 0)
		return
	}
	v = strings.TrimPrefix(v, "file://")
	if v == unk {
		s.a.use(s.c, Word{}, acc)
		return
	}
	s.a.use(s.c, valWord(v), acc)
}

// shellVal analyses a shell command built by the code: a known one one
// level deeper; one with unknown parts is dynamic, its known parts still
// analysed (the unknown parts as an unset variable).
func (s *codeScan) shellVal(v string) {
	if known(v) {
		s.shell(v)
		return
	}
	s.dynShell = true
	if v != unk {
		s.shell(strings.ReplaceAll(v, unk, `"$__parallax_unknown"`))
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
