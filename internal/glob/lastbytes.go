package glob

import "strings"

// Bytes is a set of bytes.
type Bytes [4]uint64

// Add puts c in the set.
func (s *Bytes) Add(c byte) { s[c>>6] |= 1 << (c & 63) }

// Has reports whether c is in the set.
func (s *Bytes) Has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// LastBytes returns the bytes the last character of a name matching the
// glob segment p can be, when p ends in a literal or a plain bracket set
// ("*.[ch]", "*.[a-z]", "*.[^o]"). ok is false when it cannot tell (a
// trailing wildcard, an escape, a character class, a set beyond ASCII):
// the caller then assumes any byte. bang says whether "[!" negates a set
// (bash) or "!" is a literal there (Go's path.Match, where "[^" negates).
func LastBytes(p string, bang bool) (set Bytes, ok bool) {
	if strings.Contains(p, "[") && strings.ContainsAny(p, `\:`) {
		return set, false // escapes or classes around sets
	}
	// Find where the last token starts: a "[" inside a set opens nothing.
	last := -1
	for i := 0; i < len(p); i++ {
		last = i
		switch p[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '^' || bang && p[j] == '!') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j < len(p) {
				i = j
			}
		}
	}
	if last < 0 {
		return set, false
	}
	tok := p[last:]
	switch {
	case tok == "*" || tok == "?" || tok[0] == '\\' || tok == "]" && strings.Contains(p, "["):
		return set, false
	case len(tok) == 1:
		set.Add(tok[0])
		return set, true
	case tok[0] != '[':
		return set, false
	}
	body := tok[1 : len(tok)-1]
	if body == "" || strings.ContainsAny(body, `[]\:`) || !isASCII(body) {
		return set, false // beyond ASCII a set matches characters, not bytes
	}
	neg := body[0] == '^' || bang && body[0] == '!'
	if neg {
		body = body[1:]
		if body == "" {
			return set, false
		}
	}
	var in Bytes
	for i := 0; i < len(body); i++ {
		lo, hi := body[i], body[i]
		if i+2 < len(body) && body[i+1] == '-' {
			hi = body[i+2]
			i += 2
		}
		for c := int(lo); c <= int(hi); c++ {
			in.Add(byte(c))
		}
	}
	if !neg {
		return in, true
	}
	for c := 0; c < 256; c++ {
		if b := byte(c); !in.Has(b) {
			set.Add(b)
		}
	}
	return set, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
