package shell

import "strings"

// This file tokenises inline code of scripting languages (python, perl,
// ruby, node, php, awk, lua) just enough to find calls with literal
// arguments. It is a scanner, not a parser: anything it cannot follow
// makes the code dynamic, never safe.

// ctok is one token of inline code.
type ctok struct {
	kind byte   // 'i' identifier, 's' string, 'b' command string (backticks, qx), 'n' number, 'p' punctuation
	s    string // identifier, unescaped string, number or punctuation
}

// lexCode splits code into tokens; it stops at maxTokens.
func lexCode(code, lang string) []ctok {
	const maxTokens = 4096
	toks := make([]ctok, 0, len(code)/4+4)
	hashComment := lang != "node" && lang != "php"
	for i := 0; i < len(code) && len(toks) < maxTokens; {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' && hashComment || c == '/' && !hashComment && i+1 < len(code) && code[i+1] == '/':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case c == '/' && !hashComment && i+1 < len(code) && code[i+1] == '*':
			end := strings.Index(code[i+2:], "*/")
			if end < 0 {
				return toks
			}
			i += end + 4
		case c == '"' || c == '\'' || c == '`':
			s, n := lexString(code[i:], lang)
			kind := byte('s')
			if c == '`' {
				kind = 'b'
			}
			toks = append(toks, ctok{kind, s})
			i += n
		case identStart(c) || c == '.' && i+1 < len(code) && identStart(code[i+1]):
			j := i + 1
			for j < len(code) && identChar(code, j) {
				j++
			}
			id := code[i:j]
			i = j
			if t, n, ok := lexQuoteOp(id, code[i:], lang); ok {
				toks = append(toks, t)
				i += n
				continue
			}
			if len(id) <= 2 && i < len(code) && (code[i] == '\'' || code[i] == '"') && strings.Trim(id, "rbfuRBFU") == "" {
				continue // python string prefix
			}
			toks = append(toks, ctok{'i', id})
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(code) && (alnum(code[j]) || code[j] == '.') {
				j++
			}
			toks = append(toks, ctok{'n', code[i:j]})
			i = j
		case c == '%' && lang == "ruby" && i+2 < len(code) && code[i+1] == 'x' && !alnum(code[i+2]):
			t, n, _ := lexQuoteOp("%x", code[i+2:], lang)
			toks = append(toks, t)
			i += 2 + n
		case c == '=' && i+1 < len(code) && code[i+1] == '>':
			toks = append(toks, ctok{'p', "=>"})
			i += 2
		default:
			toks = append(toks, ctok{'p', code[i : i+1]})
			i++
		}
	}
	return toks
}

func identStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '@'
}

// identChar reports whether code[j] continues an identifier: letters,
// digits, and the member separators . :: ->.
func identChar(code string, j int) bool {
	c := code[j]
	switch {
	case alnum(c) || c == '$':
		return true
	case c == '.':
		return j+1 < len(code) && identStart(code[j+1])
	case c == ':':
		return j+1 < len(code) && code[j+1] == ':' || j > 0 && code[j-1] == ':'
	case c == '-':
		return j+2 < len(code) && code[j+1] == '>' && identStart(code[j+2])
	case c == '>':
		return j > 0 && code[j-1] == '-'
	}
	return false
}

// lexString reads a quoted string (with backslash escapes, and python
// triple quotes); n is the number of bytes consumed.
func lexString(s, lang string) (string, int) {
	q := s[0]
	if lang == "python" && len(s) >= 3 && s[1] == q && s[2] == q {
		end := strings.Index(s[3:], s[:3])
		if end < 0 {
			return s[3:], len(s)
		}
		return s[3 : 3+end], end + 6
	}
	var sb strings.Builder
	i := 1
	for ; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if q == '\'' && lang != "python" && s[i+1] != '\'' && s[i+1] != '\\' {
				sb.WriteByte('\\')
				continue
			}
			i++
			sb.WriteString(escChar(s[i]))
			continue
		}
		sb.WriteByte(s[i])
	}
	if i < len(s) {
		i++
	}
	return sb.String(), i
}

func escChar(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	}
	return string(c)
}

// lexQuoteOp reads perl/ruby quote operators: qx{...} %x(...) as command
// strings, q(...) qq(...) as strings.
func lexQuoteOp(id, rest, lang string) (ctok, int, bool) {
	if lang != "perl" && lang != "ruby" || rest == "" {
		return ctok{}, 0, false
	}
	var kind byte
	switch id {
	case "qx", "%x":
		kind = 'b'
	case "q", "qq":
		kind = 's'
	default:
		return ctok{}, 0, false
	}
	open := rest[0]
	var closeCh byte
	switch open {
	case '{':
		closeCh = '}'
	case '(':
		closeCh = ')'
	case '[':
		closeCh = ']'
	case '<':
		closeCh = '>'
	default:
		if alnum(open) || open == ' ' {
			return ctok{}, 0, false
		}
		closeCh = open
	}
	end := strings.IndexByte(rest[1:], closeCh)
	if end < 0 {
		return ctok{kind, rest[1:]}, len(rest), true
	}
	return ctok{kind, rest[1 : 1+end]}, end + 2, true
}
