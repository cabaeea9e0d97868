package shell

import (
	"strings"
	"unicode/utf8"
)

// This file evaluates expressions of inline code to the strings they
// stand for: literals, concatenations, interpolations, path joins, the
// home directory and $HOME, the code's own arguments, and variables
// assigned once. Whatever it cannot follow is unknown (unk), never
// guessed: a path or a command built from an unknown part is judged as
// unknown, with the parts that are known kept.

// unk marks an unknown part of a value.
const unk = "\x00"

// Evaluation bounds: nesting (parentheses, calls, variables) and the
// length of a value (a = b + b, b = c + c, ... doubles at each step).
const (
	maxValDepth = 24
	maxValLen   = 8 << 10
)

// known reports whether a value has no unknown part.
func known(v string) bool { return !strings.Contains(v, unk) }

// squash collapses runs of unknown parts.
func squash(v string) string {
	for strings.Contains(v, unk+unk) {
		v = strings.ReplaceAll(v, unk+unk, unk)
	}
	return v
}

// valWord turns a value into a word: known, or with its unknown parts as
// * in its pattern (the known prefix stays judged).
func valWord(v string) Word {
	if known(v) {
		return Word{Value: v, Known: true}
	}
	parts := strings.Split(v, unk)
	var pb strings.Builder
	for k, p := range parts {
		if k > 0 {
			pb.WriteByte('*')
		}
		pb.WriteString(escapeGlob(p))
	}
	return Word{Value: parts[0], pat: pb.String()}
}

// match returns the index of the bracket closing toks[i] (before to), or
// to-1 when it is not closed.
func (s *codeScan) match(i, to int) int {
	depth := 0
	for j := i; j < to; j++ {
		t := s.toks[j]
		if t.kind != 'p' {
			continue
		}
		switch t.s {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return to - 1
}

// val evaluates toks[from:to] as a string expression.
func (s *codeScan) val(from, to int) string {
	if from >= to || s.depth >= maxValDepth {
		return unk
	}
	if s.work += to - from; s.work > maxCodeWork {
		s.tooBig = true
		return unk
	}
	s.depth++
	defer func() { s.depth-- }()
	var sb strings.Builder
	for i := from; i < to; {
		for i < to && s.toks[i].kind == 'i' && (s.toks[i].s == "new" || s.toks[i].s == "await") {
			i++
		}
		if i >= to {
			return unk
		}
		j := s.operandEnd(i, to)
		if j <= i {
			return unk
		}
		sb.WriteString(s.operand(i, j))
		if j >= to {
			break
		}
		sep, n, ok := s.concatOp(j, to)
		if !ok {
			return unk
		}
		sb.WriteString(sep)
		i = j + n
		if sb.Len() > maxValLen {
			return unk
		}
	}
	if sb.Len() > maxValLen {
		return unk
	}
	return squash(sb.String())
}

// operandEnd returns the end of the operand starting at toks[i]: a
// literal, a name, a bracketed group, with the calls, indexes and members
// that follow it.
func (s *codeScan) operandEnd(i, to int) int {
	t := s.toks[i]
	j := i + 1
	if t.kind == 'p' {
		if t.s != "(" && t.s != "[" {
			return i
		}
		j = s.match(i, to) + 1
	}
	for j < to {
		n := s.toks[j]
		switch {
		case n.kind == 'p' && (n.s == "(" || n.s == "["):
			j = s.match(j, to) + 1
		case n.kind == 'p' && n.s == "{" && s.lang == "perl" && s.toks[j-1].kind == 'i':
			j = s.match(j, to) + 1 // $ENV{HOME}
		case n.kind == 'i' && n.s[0] == '.' && !n.nl:
			j++
		default:
			return j
		}
	}
	return j
}

// concatOp reports a string concatenation operator at toks[j]: what it
// inserts (python's Path / joins with "/") and how many tokens it spans
// (0: operands side by side, as in awk and python's "a" "b").
func (s *codeScan) concatOp(j, to int) (string, int, bool) {
	t := s.toks[j]
	switch s.lang {
	case "python":
		switch {
		case t.kind == 'p' && t.s == "+":
			return "", 1, true
		case t.kind == 'p' && t.s == "/":
			return "/", 1, true
		case t.kind == 's' && s.toks[j-1].kind == 's':
			return "", 0, true
		}
	case "node", "ruby":
		return "", 1, t.kind == 'p' && t.s == "+"
	case "perl", "php":
		return "", 1, t.kind == 'p' && t.s == "."
	case "lua":
		return "", 1, t.kind == 'p' && t.s == ".."
	case "awk":
		return "", 0, t.kind != 'p' || t.s == "("
	}
	return "", 0, false
}

// operand evaluates one operand toks[i:j].
func (s *codeScan) operand(i, j int) string {
	t := s.toks[i]
	switch {
	case j == i+1 && t.kind == 's':
		return s.strVal(i)
	case j == i+1 && t.kind == 'n':
		return t.s
	case t.kind == 'p' && t.s == "(" && s.match(i, j) == j-1:
		return s.val(i+1, j-1)
	case t.kind == 'p' && t.s == "[":
		// [a, b].join(sep)
		k := s.match(i, j)
		if k+2 < j && s.toks[k+1].s == ".join" && s.toks[k+2].s == "(" && s.match(k+2, j) == j-1 {
			return s.joinList(i, k+1, s.argVal(k+2, ""))
		}
	case t.kind == 's' && j > i+2 && s.toks[i+1].s == ".join" && s.toks[i+2].s == "(" && s.match(i+2, j) == j-1:
		// python's "sep".join([a, b])
		args := s.argRanges(i+2, j)
		if len(args) == 1 {
			return s.joinList(args[0][0], args[0][1], s.strVal(i))
		}
	case t.kind == 'i':
		return s.identVal(i, j)
	}
	return unk
}

// strVal is the value of a string token, interpolations included.
func (s *codeScan) strVal(i int) string {
	t := s.toks[i]
	if s.collect != nil {
		s.collect = append(s.collect, i)
	}
	if len(t.in) == 0 {
		return t.s
	}
	var sb strings.Builder
	prev := 0
	for _, in := range t.in {
		sb.WriteString(t.s[prev:in.at])
		if in.to > in.from {
			sb.WriteString(s.val(in.from, in.to))
		} else {
			sb.WriteString(unk)
		}
		prev = in.at
	}
	sb.WriteString(t.s[prev:])
	return squash(sb.String())
}

// joinList joins the values of a list literal toks[from:to] with sep.
func (s *codeScan) joinList(from, to int, sep string) string {
	items, ok := s.listVals(from, to)
	if !ok {
		return unk
	}
	return squash(strings.Join(items, sep))
}

// listVals evaluates a list or tuple literal toks[from:to].
func (s *codeScan) listVals(from, to int) ([]string, bool) {
	if to-from < 2 || s.toks[from].kind != 'p' || (s.toks[from].s != "[" && s.toks[from].s != "(") || s.match(from, to) != to-1 {
		return nil, false
	}
	var out []string
	for _, r := range s.argRanges(from, to) {
		out = append(out, s.val(r[0], r[1]))
	}
	return out, true
}

// argRanges splits the bracketed group at toks[open] (ending before to)
// into its comma-separated items.
func (s *codeScan) argRanges(open, to int) [][2]int {
	end := s.match(open, to)
	var out [][2]int
	start, depth := open+1, 0
	for j := open + 1; j < end; j++ {
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
			if depth == 0 {
				out = append(out, [2]int{start, j})
				start = j + 1
			}
		}
	}
	if end > start {
		out = append(out, [2]int{start, end})
	}
	return out
}

// argVal evaluates the single argument of the call group at toks[open];
// def when there is none.
func (s *codeScan) argVal(open int, def string) string {
	args := s.argRanges(open, len(s.toks))
	switch len(args) {
	case 0:
		return def
	case 1:
		return s.val(args[0][0], args[0][1])
	}
	return unk
}

// identVal evaluates a name with what follows it: a variable, a call, an
// index, then method calls on the result.
func (s *codeScan) identVal(i, j int) string {
	raw, name := s.toks[i].s, s.canonAt(i)
	post := i + 1
	var v string
	switch {
	case post == j:
		return s.nameVal(raw, name)
	case s.toks[post].s == "(":
		if rv, next, ok := s.reflectVal(name, post, j); ok {
			v, post = rv, next // getattr(os.path, "expanduser")("~")
			break
		}
		k := s.match(post, j)
		v = s.callVal(name, post, k)
		post = k + 1
	case s.toks[post].s == "[" || s.toks[post].s == "{":
		k := s.match(post, j)
		key := s.val(post+1, k)
		if s.toks[post].s == "{" && k == post+2 && s.toks[post+1].kind == 'i' {
			key = s.toks[post+1].s // perl's $ENV{HOME}: a bareword key
		}
		v = s.indexVal(name, key)
		post = k + 1
	default:
		return unk
	}
	for post < j && (v != unk || s.toks[post].kind == 'i' && s.canonAt(post) != s.toks[post].s) {
		m := s.toks[post]
		if m.kind != 'i' || m.s[0] != '.' || post+1 >= j || s.toks[post+1].s != "(" {
			return unk
		}
		k := s.match(post+1, j)
		if c := s.canonAt(post); c != m.s {
			v = s.callVal(c, post+1, k) // require("os").homedir()
		} else {
			v = s.methodVal(v, m.s, post+1, k)
		}
		post = k + 1
	}
	return v
}

// nameVal is the value of a bare name: a variable, the home directory,
// an environment variable or a path separator.
func (s *codeScan) nameVal(raw, name string) string {
	if v, ok := s.varVal(raw); ok {
		return v
	}
	switch name {
	case "Dir.home":
		return s.home()
	case "os.sep", "path.sep", "File::SEPARATOR", "File.SEPARATOR", "DIRECTORY_SEPARATOR", "path.posix.sep":
		return "/"
	}
	if v, ok := strings.CutPrefix(name, "process.env."); ok {
		return s.envVal(v)
	}
	return unk
}

// home is the home directory as a value.
func (s *codeScan) home() string {
	if h := s.a.opt.Home; h != "" {
		return h
	}
	return unk
}

// envVal is the value of an environment variable: $HOME is the home
// directory, every other one is unknown.
func (s *codeScan) envVal(name string) string {
	if name == "HOME" {
		return s.home()
	}
	return unk
}

// callVal evaluates a call of a function the evaluator knows: home
// directory, environment, path joins, wrappers that keep their argument,
// character codes.
func (s *codeScan) callVal(name string, open, end int) string {
	args := s.argRanges(open, end+1)
	arg := func(k int) string {
		if k < len(args) {
			return s.val(args[k][0], args[k][1])
		}
		return unk
	}
	switch f := valFuncs[name]; {
	case f == vHome && len(args) == 0:
		return s.home()
	case f == vEnv && len(args) >= 1:
		return s.envVal(arg(0))
	case f == vTilde && len(args) == 1:
		return s.expandTilde(arg(0))
	case f == vSame && len(args) == 1, f == vFirst && len(args) >= 1:
		return arg(0)
	case f == vJoin || f == vJoinAbs || f == vConcat:
		parts := make([]string, len(args))
		for k := range args {
			parts[k] = arg(k)
		}
		return joinVals(parts, f)
	case f == vChr:
		var sb strings.Builder
		for k := range args {
			sb.WriteString(chrVal(arg(k)))
		}
		return squash(sb.String())
	}
	return unk
}

// Functions the evaluator knows, by what their value is.
const (
	vHome    = iota + 1 // the home directory
	vEnv                // the environment variable named by the argument
	vTilde              // the argument with ~ expanded
	vSame               // the argument
	vFirst              // the first argument
	vJoin               // its arguments joined with "/"
	vJoinAbs            // joined with "/", an absolute part restarting the path
	vConcat             // its arguments concatenated
	vChr                // the characters of its numeric arguments
)

var valFuncs = map[string]int{
	"os.homedir": vHome, "Path.home": vHome, "pathlib.Path.home": vHome, "Dir.home": vHome,
	"os.getenv": vEnv, "os.environ.get": vEnv, "getenv": vEnv, "ENV.fetch": vEnv, "Sys.getenv": vEnv,
	"Deno.env.get": vEnv, "process.env.get": vEnv, "Bun.env.get": vEnv,
	"os.path.expanduser": vTilde, "expanduser": vTilde, "path.expand": vTilde, "File.expand_path": vTilde,
	"str": vSame, "String": vSame, "os.path.abspath": vSame, "os.path.realpath": vSame, "os.path.normpath": vSame,
	"os.fspath": vSame, "os.fsencode": vSame, "os.fsdecode": vSame, "path.normalize": vSame,
	"fs.realpathSync": vSame, "File.absolute_path": vSame, "File.realpath": vSame, "realpath": vSame,
	"normalizePath": vSame, "Pathname.new": vSame, "Pathname": vSame, "URI": vFirst, "URI.parse": vFirst,
	"URL": vFirst, "urllib.request.Request": vFirst, "urllib2.Request": vFirst, "Request": vFirst,
	"bytes": vFirst, "url": vFirst, "Buffer.from": vFirst,
	"os.path.join": vJoinAbs, "posixpath.join": vJoinAbs, "path.resolve": vJoinAbs, "Path": vJoinAbs,
	"pathlib.Path": vJoinAbs, "PurePath": vJoinAbs, "pathlib.PurePath": vJoinAbs, "PosixPath": vJoinAbs,
	"pathlib.PosixPath": vJoinAbs,
	"path.join":         vJoin, "path.posix.join": vJoin, "File.join": vJoin, "file.path": vJoin, "fs::path": vJoin,
	"paste0": vConcat, "concat": vConcat,
	"chr": vChr, "String.fromCharCode": vChr, "unichr": vChr,
}

// joinVals joins path parts.
func joinVals(parts []string, f int) string {
	var sb strings.Builder
	for k, p := range parts {
		switch {
		case f == vConcat:
		case f == vJoinAbs && (strings.HasPrefix(p, "/") || strings.HasPrefix(p, unk)):
			// An absolute part starts the path again; an unknown one
			// may be absolute.
			sb.Reset()
		case k > 0 && sb.Len() > 0 && !strings.HasSuffix(sb.String(), "/"):
			sb.WriteByte('/')
		}
		sb.WriteString(p)
	}
	if sb.Len() == 0 && len(parts) == 0 {
		return unk
	}
	return squash(sb.String())
}

// chrVal is the character a numeric code stands for.
func chrVal(v string) string {
	n := 0
	for _, c := range []byte(v) {
		if c < '0' || c > '9' || n > utf8.MaxRune {
			return unk
		}
		n = n*10 + int(c-'0')
	}
	if v == "" || n == 0 || n > utf8.MaxRune {
		return unk
	}
	return string(rune(n))
}

// expandTilde expands a leading ~ to the home directory.
func (s *codeScan) expandTilde(v string) string {
	if v == "~" {
		return s.home()
	}
	if rest, ok := strings.CutPrefix(v, "~/"); ok {
		return s.home() + "/" + rest
	}
	return v
}

// indexVal evaluates container[key]: an environment variable, or one of
// the code's own arguments.
func (s *codeScan) indexVal(name, key string) string {
	switch name {
	case "os.environ", "ENV", "process.env", "$_ENV", "$_SERVER", "ENVIRON", "$ENV", "Deno.env", "Bun.env":
		return s.envVal(key)
	case "sys.argv", "process.argv", "$argv":
		return s.argvVal(key, 1)
	case "ARGV", "$ARGV":
		return s.argvVal(key, 0)
	}
	return unk
}

// argvVal is the code's argument at index key, where index base is the
// first argument after the code.
func (s *codeScan) argvVal(key string, base int) string {
	n := 0
	for _, c := range []byte(key) {
		if c < '0' || c > '9' || n > 64 {
			return unk
		}
		n = n*10 + int(c-'0')
	}
	n -= base
	if key == "" || n < 0 || n >= len(s.codeArgs) || !s.codeArgs[n].Known {
		return unk
	}
	return s.codeArgs[n].Value
}

// methodVal evaluates a method call on a known value.
func (s *codeScan) methodVal(v, method string, open, end int) string {
	args := s.argRanges(open, end+1)
	arg := func(k int) string {
		if k < len(args) {
			return s.val(args[k][0], args[k][1])
		}
		return unk
	}
	switch method {
	case ".joinpath":
		parts := []string{v}
		for k := range args {
			parts = append(parts, arg(k))
		}
		return joinVals(parts, vJoinAbs)
	case ".expanduser":
		return s.expandTilde(v)
	case ".resolve", ".absolute", ".toString", ".to_s", ".as_posix", ".__str__", ".to_path", ".encode", ".decode",
		".cleanpath", ".expand_path":
		return v
	case ".concat":
		for k := range args {
			v += arg(k)
		}
		return squash(v)
	case ".chr":
		return chrVal(v)
	case ".replace", ".replaceAll":
		if len(args) != 2 || !known(v) {
			return unk
		}
		from, to := arg(0), arg(1)
		if !known(from) || from == "" {
			return unk
		}
		if method == ".replace" && s.lang == "node" {
			return strings.Replace(v, from, to, 1)
		}
		return squash(strings.ReplaceAll(v, from, to))
	}
	return unk
}
