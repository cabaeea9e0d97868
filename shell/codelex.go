package shell

import "strings"

// This file tokenises inline code of scripting languages (python, perl,
// ruby, node, php, awk, lua, r) just enough to find calls and the
// expressions given to them. It is a scanner, not a parser: anything it
// cannot follow makes the code dynamic, never safe.

// ctok is one token of inline code.
type ctok struct {
	// kind: 'i' identifier (members joined: os.path.join, $u->get,
	// File::Copy::copy), 's' string, 'b' command string (backticks, qx,
	// %x), 'r' regular expression literal, 'n' number, 'p' punctuation.
	kind byte
	s    string    // identifier, unescaped literal text, number or punctuation
	nl   bool      // a line break comes before it
	in   []cinterp // values interpolated into a string, in order
}

// cinterp is an expression interpolated into a string ("$x", "#{x}",
// f"{x}", `${x}`): its value goes at byte offset at of the literal text,
// and its tokens are toks[from:to] (lexed after the code's own tokens).
type cinterp struct {
	at, from, to int
}

// Inline code bounds: code larger than this, or with more tokens, is not
// analysed (it is unknown code).
const (
	maxCodeBytes  = 32 << 10
	maxCodeTokens = 8192
)

// lexer is the state of one tokenisation.
type lexer struct {
	lang string
	toks []ctok
	pend []pendInterp
	full bool // the token bound was hit
	// amb are the places where "/" could start a regular expression or
	// divide, depending on what the interpreter's parser decides; force
	// (+1 regex, -1 division) overrides the choice at offset 0 of a
	// re-lexed remainder.
	amb   []ambig
	force int
	top   bool
}

// ambig is an ambiguous "/" in the code: the offset and the reading the
// lexer did not choose.
type ambig struct {
	at    int
	regex bool
}

// maxAmbiguous bounds the remainders lexed a second way.
const maxAmbiguous = 4

// pendInterp is interpolated source waiting to be lexed.
type pendInterp struct {
	tok, idx int
	src      string
}

// lexCode splits code into tokens. full reports that the token bound was
// hit: the tokens do not cover the whole code. Where a "/" may be read
// both as a division and as a regular expression, the rest of the code
// is lexed the other way too, as tokens toks[shadow[0]:shadow[1]]: they
// are scanned for calls (whichever reading the interpreter takes, its
// calls are seen) but assign nothing.
func lexCode(code, lang string) (toks []ctok, full bool, shadow [2]int) {
	lx := lexer{lang: lang, toks: make([]ctok, 0, len(code)/4+4), top: true}
	lx.lex(code)
	lx.top = false
	shadow[0] = len(lx.toks)
	for _, a := range lx.amb {
		lx.add(ctok{kind: 'p', s: ";", nl: true})
		lx.force = -1
		if a.regex {
			lx.force = 1
		}
		lx.lex(code[a.at:])
		lx.force = 0
	}
	shadow[1] = len(lx.toks)
	// Interpolated expressions are lexed after the code, each as a
	// statement of its own; theirs may hold more.
	for k := 0; k < len(lx.pend) && !lx.full; k++ {
		p := lx.pend[k]
		lx.add(ctok{kind: 'p', s: ";", nl: true})
		from := len(lx.toks)
		lx.lex(p.src)
		lx.toks[p.tok].in[p.idx].from, lx.toks[p.tok].in[p.idx].to = from, len(lx.toks)
	}
	return lx.toks, lx.full, shadow
}

// regexAt decides whether the "/" at code[i] starts a regular expression,
// and records the other reading where the interpreter may take it.
func (lx *lexer) regexAt(code string, i int) bool {
	if lx.force != 0 && i == 0 {
		return lx.force > 0
	}
	r := lx.regexHere(code, i)
	if lx.top && len(lx.amb) < maxAmbiguous && lx.ambiguous() {
		lx.amb = append(lx.amb, ambig{at: i, regex: !r})
	}
	return r
}

// ambiguous reports whether the token before a "/" leaves the reading to
// the interpreter's parser: after a JavaScript block or condition (} or
// )), after a perl or ruby bare name (a function called with a regex, or
// a value divided) or block.
func (lx *lexer) ambiguous() bool {
	if len(lx.toks) == 0 {
		return false
	}
	p := lx.toks[len(lx.toks)-1]
	switch lx.lang {
	case "node":
		return p.kind == 'p' && (p.s == ")" || p.s == "}")
	case "perl", "ruby":
		return p.kind == 'p' && p.s == "}" ||
			p.kind == 'i' && p.s[0] != '$' && p.s[0] != '@' && !regexWords[lx.lang][p.s]
	}
	return false
}

func (lx *lexer) add(t ctok) {
	if len(lx.toks) >= maxCodeTokens {
		lx.full = true
		return
	}
	lx.toks = append(lx.toks, t)
}

// lex appends the tokens of code.
func (lx *lexer) lex(code string) {
	lang := lx.lang
	hashComment := lang != "node" && lang != "php" && lang != "lua"
	nl := false
	for i := 0; i < len(code) && !lx.full; {
		c := code[i]
		start := len(lx.toks)
		switch {
		case c == '\n':
			nl = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\\' && i+1 < len(code) && code[i+1] == '\n':
			i++
		case c == '#' && (hashComment || lang == "php") || c == '/' && !hashComment && i+1 < len(code) && code[i+1] == '/' ||
			lang == "lua" && c == '-' && strings.HasPrefix(code[i:], "--"):
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case c == '/' && !hashComment && i+1 < len(code) && code[i+1] == '*':
			end := strings.Index(code[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 4
		case c == '"' || c == '\'' || c == '`':
			i += lx.str(code[i:], "")
		case c == '$' && lang == "perl" && i+1 < len(code) && code[i+1] == '#':
			// $#array, $#{$r}: the last index, not a comment.
			j := i + 2
			for j < len(code) && (alnum(code[j]) || code[j] == ':' || code[j] == '$') {
				j++
			}
			lx.add(ctok{kind: 'i', s: code[i:j]})
			i = j
		case c == '?' && lang == "ruby" && i+1 < len(code) && code[i+1] != ' ' && code[i+1] != '\n' &&
			(len(lx.toks) == 0 || !lx.toks[len(lx.toks)-1].operand()):
			// ?c is the one-character string "c".
			n := 2
			if code[i+1] == '\\' && i+2 < len(code) {
				n = 3
			}
			lx.add(ctok{kind: 's', s: code[i+1 : i+n]})
			i += n
		case c == '/' && lx.regexAt(code, i):
			i += lx.regex(code[i:], 1)
		case identStart(c) || c == '.' && lang != "perl" && lang != "php" && i+1 < len(code) && identStart(code[i+1]):
			i += lx.ident(code, i)
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(code) && (alnum(code[j]) || code[j] == '.' && lang != "lua") {
				j++
			}
			lx.add(ctok{kind: 'n', s: code[i:j]})
			i = j
		case c == '%' && lang == "ruby" && i+2 < len(code) && strings.IndexByte("xQqwWiIr", code[i+1]) >= 0 && !alnum(code[i+2]) && code[i+2] != ' ':
			i += lx.rubyPercent(code[i:])
		case c == '=' && i+1 < len(code) && code[i+1] == '>', c == '.' && lang == "lua" && i+1 < len(code) && code[i+1] == '.':
			lx.add(ctok{kind: 'p', s: code[i : i+2]})
			i += 2
		default:
			lx.add(ctok{kind: 'p', s: code[i : i+1]})
			i++
		}
		if nl && len(lx.toks) > start {
			lx.toks[start].nl, nl = true, false
		}
	}
}

// ident reads an identifier at code[i] (with a string prefix, a quote
// operator or a regex operator it introduces) and returns its length.
func (lx *lexer) ident(code string, i int) int {
	j := i + 1
	for j < len(code) && identChar(code, j, lx.lang) {
		j++
	}
	id, rest := code[i:j], code[j:]
	if n, ok := lx.quoteOp(id, rest); ok {
		return j - i + n
	}
	if lx.lang == "python" && len(id) <= 2 && rest != "" && (rest[0] == '\'' || rest[0] == '"') && strings.Trim(id, "rbfuRBFU") == "" {
		return j - i + lx.str(rest, id) // string prefix
	}
	lx.add(ctok{kind: 'i', s: id})
	return j - i
}

func identStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '@'
}

// identChar reports whether code[j] continues an identifier: letters,
// digits, and the member separators . :: ->.
func identChar(code string, j int, lang string) bool {
	c := code[j]
	switch {
	case alnum(c) || c == '$':
		return true
	case c == '.':
		// perl and php concatenate with ".": $a.$b and $a.lc($b) are
		// operands of a concatenation, not members.
		return j+1 < len(code) && identStart(code[j+1]) && lang != "perl" && lang != "php"
	case c == ':':
		return j+1 < len(code) && code[j+1] == ':' || j > 0 && code[j-1] == ':'
	case c == '-':
		return j+2 < len(code) && code[j+1] == '>' && identStart(code[j+2])
	case c == '>':
		return j > 0 && code[j-1] == '-'
	}
	return false
}

// operand reports whether a token ends an operand: after it, "/" is a
// division, not a regular expression.
func (t ctok) operand() bool {
	switch t.kind {
	case 'i', 's', 'n', 'b', 'r':
		return true
	}
	return t.s == ")" || t.s == "]" || t.s == "}"
}

// regexHere reports whether a "/" starts a regular expression literal:
// in the languages that have them, where no operand precedes it.
func (lx *lexer) regexHere(code string, i int) bool {
	words := regexWords[lx.lang]
	if words == nil {
		return false
	}
	if len(lx.toks) == 0 {
		return true
	}
	prev := lx.toks[len(lx.toks)-1]
	if prev.kind == 'i' {
		if words[prev.s] {
			return true
		}
		// ruby and perl read "name /x" (a space before, none after) as a
		// call with a regex argument; "$x /2" is a division.
		if (lx.lang == "ruby" || lx.lang == "perl") && prev.s[0] != '$' && prev.s[0] != '@' && i > 0 &&
			code[i-1] == ' ' && i+1 < len(code) && code[i+1] != ' ' && code[i+1] != '=' {
			return true
		}
	}
	return !prev.operand()
}

// regexWords are the words after which "/" starts a regular expression,
// per language: keywords and operators that take a term (in JavaScript
// a name like "and" is a variable, and "and / 2" a division).
var regexWords = map[string]map[string]bool{
	"perl": {"split": true, "grep": true, "map": true, "if": true, "unless": true, "and": true, "or": true, "not": true,
		"return": true, "when": true, "while": true, "until": true, "x": true, "eq": true, "ne": true, "lt": true,
		"gt": true, "le": true, "ge": true, "cmp": true, "xor": true},
	"ruby": {"if": true, "unless": true, "and": true, "or": true, "not": true, "return": true, "when": true,
		"while": true, "until": true, "then": true, "do": true, "elsif": true, "case": true, "in": true},
	"node": {"return": true, "typeof": true, "in": true, "of": true, "instanceof": true, "new": true, "delete": true,
		"void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true},
	"awk": {"in": true, "print": true, "printf": true, "return": true},
}

// regex reads a regular expression literal of parts delimited parts
// (m//: 1, s///: 2) after its opening delimiter s[0], with its flags.
// perl's s///e replacement is code: it is lexed as a statement.
func (lx *lexer) regex(s string, parts int) int {
	open := s[0]
	closeCh := closerOf(open)
	i, body, repl := 1, "", ""
	for p := 0; p < parts && i <= len(s); p++ {
		j := i
		for j < len(s) && s[j] != closeCh {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		j = min(j, len(s))
		if p == 0 {
			body = s[i:j]
		} else {
			repl = s[i:j]
		}
		i = j + 1
		if p+1 < parts && closeCh != open {
			// s{a}{b}: the second part has its own opening delimiter.
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) {
				i++
			}
		}
	}
	i = min(i, len(s))
	flags := i
	for i < len(s) && alnum(s[i]) {
		i++
	}
	lx.add(ctok{kind: 'r', s: body})
	if lx.lang == "perl" && parts == 2 && strings.Contains(s[flags:i], "e") {
		lx.add(ctok{kind: 'p', s: ";"})
		top := lx.top
		lx.top = false // offsets in repl are not offsets in the code
		lx.lex(repl)
		lx.top = top
		lx.add(ctok{kind: 'p', s: ";"})
	}
	return i
}

// closerOf returns the delimiter that closes open.
func closerOf(open byte) byte {
	switch open {
	case '{':
		return '}'
	case '(':
		return ')'
	case '[':
		return ']'
	case '<':
		return '>'
	}
	return open
}

// quoteOp reads perl quote and regex operators after their name:
// qx{...} as a command string, q(...) qq(...) as strings, m// s/// tr///
// y/// qr// as regular expressions. n is what it consumed after id.
func (lx *lexer) quoteOp(id, rest string) (int, bool) {
	if lx.lang != "perl" || rest == "" {
		return 0, false
	}
	if open := rest[0]; alnum(open) || strings.IndexByte(" \t\n_,;)]}>=-.:", open) >= 0 {
		return 0, false
	}
	switch id {
	case "qx":
		return lx.delimited(rest, 'b', lx.lang), true
	case "qq":
		return lx.delimited(rest, 's', lx.lang), true
	case "q", "qw":
		return lx.delimited(rest, 's', ""), true
	case "m", "qr":
		return lx.regex(rest, 1), true
	case "s", "tr", "y":
		return lx.regex(rest, 2), true
	}
	return 0, false
}

// delimited reads text between a delimiter pair as a token of kind, with
// interpolation in language interp ("" for none).
func (lx *lexer) delimited(rest string, kind byte, interp string) int {
	closeCh := closerOf(rest[0])
	end := strings.IndexByte(rest[1:], closeCh)
	body, n := rest[1:], len(rest)
	if end >= 0 {
		body, n = rest[1:1+end], end+2
	}
	esc := escFull
	if interp == "" {
		esc = escQuote
	}
	lx.strTok(kind, body, interp, esc)
	return n
}

// rubyPercent reads %x() %Q() %q() %w[] %i[] %r{} literals.
func (lx *lexer) rubyPercent(s string) int {
	switch s[1] {
	case 'x':
		return 2 + lx.delimited(s[2:], 'b', "ruby")
	case 'Q':
		return 2 + lx.delimited(s[2:], 's', "ruby")
	case 'q':
		return 2 + lx.delimited(s[2:], 's', "")
	case 'r':
		return 2 + lx.regex(s[2:], 1)
	}
	// %w[a b] %i[a b]: a list of words.
	closeCh := closerOf(s[2])
	end := strings.IndexByte(s[3:], closeCh)
	body, n := s[3:], len(s)
	if end >= 0 {
		body, n = s[3:3+end], end+4
	}
	lx.add(ctok{kind: 'p', s: "["})
	for k, w := range strings.Fields(body) {
		if k > 0 {
			lx.add(ctok{kind: 'p', s: ","})
		}
		lx.add(ctok{kind: 's', s: w})
	}
	lx.add(ctok{kind: 'p', s: "]"})
	return n
}
