package shell

import "strings"

// This file reads string literals of inline code: escapes, and the
// expressions interpolated into them ("$ENV{HOME}/x" in perl, "#{x}" in
// ruby, "$x" in php, f"{x}" in python, `${x}` in JavaScript). An
// interpolated expression is code: it is lexed and scanned like the rest,
// and its value is part of the string's.

// escape modes of a string literal.
const (
	escNone  = iota // raw: backslashes are text
	escQuote        // single quotes: only \\ and \' are escapes
	escFull         // \n \t \r and \x stand for x
)

// str reads a quoted string at s[0]; prefix is python's string prefix.
// It returns the bytes consumed.
func (lx *lexer) str(s, prefix string) int {
	q := s[0]
	kind, interp, esc := byte('s'), "", escFull
	switch lx.lang {
	case "python":
		p := strings.ToLower(prefix)
		if strings.Contains(p, "r") {
			esc = escNone
		}
		if strings.Contains(p, "f") {
			interp = "python"
		}
		if len(s) >= 3 && s[1] == q && s[2] == q {
			end := strings.Index(s[3:], s[:3])
			body, n := s[3:], len(s)
			if end >= 0 {
				body, n = s[3:3+end], end+6
			}
			lx.strTok(kind, body, interp, esc)
			return n
		}
	case "node":
		if q == '`' {
			interp = "node"
		}
	case "perl", "ruby", "php":
		if q != '\'' {
			interp = lx.lang
		}
		if q == '`' {
			kind = 'b'
		}
	default:
		if q == '`' {
			kind = 'b'
		}
	}
	if q == '\'' && lx.lang != "python" {
		esc = escQuote
	}
	n := strEnd(s, interp)
	body := s[1:n]
	if n < len(s) {
		n++
	}
	lx.strTok(kind, body, interp, esc)
	return n
}

// strEnd returns the index of the quote that closes the string at s[0]
// (len(s) when it is not closed), skipping escapes and the braces of
// interpolated expressions.
func strEnd(s, interp string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == q:
			return i
		case c == '{' && interpBrace(s, i, interp):
			i += braceEnd(s[i:])
		}
	}
	return len(s)
}

// interpBrace reports whether the brace at s[i] opens an interpolated
// expression (f"{x}", "${x}", "#{x}", "@{[x]}", "{$x}").
func interpBrace(s string, i int, interp string) bool {
	switch interp {
	case "":
		return false
	case "python":
		return true
	case "php":
		return i+1 < len(s) && s[i+1] == '$' || s[i-1] == '$'
	}
	return s[i-1] == '$' || s[i-1] == '#' || s[i-1] == '@'
}

// braced returns what is inside the braces opening at s[0] and the bytes
// they span (to the end of s when they are not closed).
func braced(s string) (string, int) {
	e := braceEnd(s)
	if e < 1 || s[e] != '}' {
		return s[1:], len(s)
	}
	return s[1:e], e + 1
}

// braceEnd returns the index of the brace that closes the one at s[0],
// or len(s)-1 when none does.
func braceEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// strTok appends a string token for body: escapes resolved, and the
// expressions interpolated in language interp ("" for none) queued to be
// lexed.
func (lx *lexer) strTok(kind byte, body, interp string, esc int) {
	var sb strings.Builder
	var ins []pendInterp
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' && i+1 < len(body) && esc != escNone {
			if esc == escQuote && body[i+1] != '\'' && body[i+1] != '\\' {
				sb.WriteByte(c)
				continue
			}
			v, n := escSeq(body[i+1:])
			sb.WriteString(v)
			i += n
			continue
		}
		if interp != "" {
			if src, n, lit := interpAt(body[i:], interp); n > 0 {
				if lit != "" {
					sb.WriteString(lit)
				} else {
					ins = append(ins, pendInterp{idx: sb.Len(), src: src})
				}
				i += n - 1
				continue
			}
		}
		sb.WriteByte(c)
	}
	t := ctok{kind: kind, s: sb.String()}
	for _, p := range ins {
		t.in = append(t.in, cinterp{at: p.idx})
	}
	lx.add(t)
	if lx.full {
		return
	}
	for k, p := range ins {
		lx.pend = append(lx.pend, pendInterp{tok: len(lx.toks) - 1, idx: k, src: p.src})
	}
}

// escSeq decodes the escape sequence after a backslash at the start of
// s: what it stands for and the bytes it spans. A form it cannot decode
// (\N{name}) stands for an unknown character.
func escSeq(s string) (string, int) {
	switch c := s[0]; c {
	case 'n':
		return "\n", 1
	case 't':
		return "\t", 1
	case 'r':
		return "\r", 1
	case 'a', 'b', 'f', 'v', 'e':
		return string(rune(ctrlEsc[c])), 1
	case 'x', 'u', 'U':
		return hexEsc(s)
	case 'N':
		if end := strings.IndexByte(s, '}'); strings.HasPrefix(s, "N{") && end > 0 {
			return unk, end + 1
		}
	}
	if s[0] >= '0' && s[0] <= '7' {
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return string(rune(v)), n
	}
	return s[:1], 1
}

// ctrlEsc are the control characters of \a \b \f \v \e.
var ctrlEsc = map[byte]byte{'a': 7, 'b': 8, 'f': 12, 'v': 11, 'e': 27}

// hexEsc decodes \xHH, \x{H..}, \uHHHH, \u{H..} and \UHHHHHHHH.
func hexEsc(s string) (string, int) {
	digits := 8
	switch s[0] {
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	}
	from, to := 1, 1
	if len(s) > 1 && s[1] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return unk, len(s)
		}
		from, to = 2, end
	} else {
		for to < len(s) && to-1 < digits && isHex(s[to]) {
			to++
		}
	}
	v := 0
	for _, h := range []byte(s[from:to]) {
		if !isHex(h) || v > 0x10FFFF {
			return unk, to
		}
		v = v*16 + hexVal(h)
	}
	if to == from {
		return s[:1], 1 // "\x" alone is "x"
	}
	if from == 2 {
		to++ // the closing brace
	}
	if v == 0 || v > 0x10FFFF {
		return unk, to
	}
	return string(rune(v)), to
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// interpAt reports an interpolation at the start of s in language lang:
// the expression's source and the bytes it spans, or a literal the
// sequence stands for (python's "{{"). n is 0 when there is none.
func interpAt(s, lang string) (src string, n int, lit string) {
	switch lang {
	case "python":
		switch {
		case strings.HasPrefix(s, "{{"):
			return "", 2, "{"
		case strings.HasPrefix(s, "}}"):
			return "", 2, "}"
		case s[0] == '{':
			inner, e := braced(s)
			// f"{x!r}", f"{x:>10}": the conversion and format are not
			// part of the value's source.
			if k := strings.IndexAny(inner, "!:"); k > 0 && !strings.ContainsAny(inner[:k], "[('\"") {
				inner = inner[:k]
			}
			return inner, e, ""
		}
	case "node":
		if strings.HasPrefix(s, "${") {
			inner, e := braced(s[1:])
			return inner, e + 1, ""
		}
	case "ruby":
		switch {
		case strings.HasPrefix(s, "#{"):
			inner, e := braced(s[1:])
			return inner, e + 1, ""
		case len(s) > 2 && s[0] == '#' && (s[1] == '@' || s[1] == '$') && identStart(s[2]):
			j := 2
			for j < len(s) && alnum(s[j]) {
				j++
			}
			return s[1:j], j, ""
		}
	case "perl":
		if n := perlVarLen(s); n > 0 {
			return perlVarSrc(s[:n]), n, ""
		}
	case "php":
		if n := phpVarLen(s); n > 0 {
			src := s[:n]
			if strings.HasPrefix(src, "{$") {
				src = src[1 : len(src)-1]
			}
			return src, n, ""
		}
	}
	return "", 0, ""
}

// perlVarLen returns the length of a variable interpolated at s[0] in a
// perl string ($x, $x[0], $h{k}, $r->{k}, ${x}, @{[ expr ]}, @a), or 0.
func perlVarLen(s string) int {
	if len(s) < 2 || s[0] != '$' && s[0] != '@' {
		return 0
	}
	if s[1] == '{' {
		return braceEnd(s[1:]) + 2
	}
	j := 1
	for j < len(s) && (alnum(s[j]) || s[j] == ':' && j+1 < len(s) && s[j+1] == ':') {
		if s[j] == ':' {
			j++
		}
		j++
	}
	if j == 1 {
		return 0 // "$" alone, "$ ", "$$"
	}
	for j < len(s) {
		rest := s[j:]
		if strings.HasPrefix(rest, "->") && len(rest) > 2 && (rest[2] == '[' || rest[2] == '{') {
			j += 2
			rest = s[j:]
		}
		if rest[0] != '[' && rest[0] != '{' {
			break
		}
		end := strings.IndexByte(rest, closerOf(rest[0]))
		if end < 0 {
			return len(s)
		}
		j += end + 1
	}
	return j
}

// perlVarSrc turns an interpolated form into code: ${x} is $x, ${\ e}
// and @{[ e ]} are e.
func perlVarSrc(v string) string {
	if len(v) < 3 {
		return v
	}
	switch {
	case strings.HasPrefix(v, "@{[") && strings.HasSuffix(v, "]}"):
		return v[3 : len(v)-2]
	case strings.HasPrefix(v, "${\\") && len(v) > 3:
		return v[3 : len(v)-1]
	case strings.HasPrefix(v, "${") || strings.HasPrefix(v, "@{"):
		return v[:1] + v[2:len(v)-1]
	}
	return v
}

// phpVarLen returns the length of a variable interpolated at s[0] in a
// php string ($x, $x[0], $x->y, {$expr}, ${x}), or 0.
func phpVarLen(s string) int {
	if strings.HasPrefix(s, "{$") || strings.HasPrefix(s, "${") {
		return braceEnd(s[strings.IndexByte(s, '{'):]) + strings.IndexByte(s, '{') + 1
	}
	if len(s) < 2 || s[0] != '$' || !identStart(s[1]) || s[1] == '$' {
		return 0
	}
	j := 2
	for j < len(s) && alnum(s[j]) {
		j++
	}
	switch {
	case j < len(s) && s[j] == '[':
		if end := strings.IndexByte(s[j:], ']'); end > 0 {
			j += end + 1
		}
	case strings.HasPrefix(s[j:], "->") && j+2 < len(s) && identStart(s[j+2]):
		j += 2
		for j < len(s) && alnum(s[j]) {
			j++
		}
	}
	return j
}
