package shell

// MaxSyntaxNesting bounds how deeply shell code may nest subshells,
// command and arithmetic substitutions, brace groups and parameter
// expansions before it is parsed. The parser and the walk recurse once
// per level: 30k levels (60 KB, under MaxBytes) cost 0.5 s and 260 MB.
// Real commands nest a few levels; past this bound the code is not
// parsed and its effects are limit_exceeded.
const MaxSyntaxNesting = 128

// syntaxNesting returns an estimate of how deeply code nests, one pass
// without allocation: ( and { open a level, ) and } close one, in plain
// code and in $( and ${ inside double quotes; single-quoted text, escaped
// characters and double-quoted text are skipped. It overcounts (a { in a
// comment, a case pattern's parenthesis), never by much in real code. A
// closer hidden in a heredoc body can undercount, at a cost in bytes per
// level that MaxBytes bounds. It stops counting once past limit.
func syntaxNesting(code string, limit int) int {
	var st [MaxSyntaxNesting + 2]byte
	n, deepest := 0, 0
	push := func(c byte) bool {
		if n == len(st) {
			return false
		}
		st[n] = c
		n++
		deepest = max(deepest, n)
		return n <= limit
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if n > 0 && st[n-1] == '"' {
			switch {
			case c == '\\':
				i++
			case c == '"':
				n--
			case c == '$' && i+1 < len(code) && (code[i+1] == '(' || code[i+1] == '{'):
				i++
				if !push(code[i]) {
					return deepest
				}
			}
			continue
		}
		switch c {
		case '\\':
			i++
		case '\'':
			for i++; i < len(code) && code[i] != '\''; i++ {
			}
		case '"', '(', '{':
			if !push(c) {
				return deepest
			}
		case ')', '}':
			if n > 0 {
				n--
			}
		}
	}
	return deepest
}
