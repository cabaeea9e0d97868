package guard

import (
	"path"
	"strings"
)

// Token kinds of a pattern segment.
const (
	tokLit   = iota // one literal byte
	tokAny          // ?
	tokStar         // *
	tokClass        // [...]
)

type tok struct {
	kind  int
	c     byte
	class string // the bracket expression without brackets, path.Match syntax
}

// tokenize splits a segment in path.Match syntax into tokens; ok is false
// for a malformed segment.
func tokenize(q string) (toks []tok, ok bool) {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '*':
			toks = append(toks, tok{kind: tokStar})
		case '?':
			toks = append(toks, tok{kind: tokAny})
		case '\\':
			if i+1 == len(q) {
				return nil, false
			}
			i++
			toks = append(toks, tok{kind: tokLit, c: q[i]})
		case '[':
			end := classEnd(q, i)
			if end < 0 {
				return nil, false
			}
			toks = append(toks, tok{kind: tokClass, class: q[i+1 : end]})
			i = end
		default:
			toks = append(toks, tok{kind: tokLit, c: c})
		}
	}
	return toks, true
}

// classEnd returns the index of the "]" closing the class opened at q[i],
// or -1. A "]" first in the class (after an optional "^") is literal.
func classEnd(q string, i int) int {
	j := i + 1
	if j < len(q) && (q[j] == '^' || q[j] == '!') {
		j++
	}
	if j < len(q) && q[j] == ']' {
		j++
	}
	for ; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case '[':
			// A POSIX class "[:alpha:]" (or "[.x.]", "[=x=]") is one unit.
			if j+1 < len(q) && strings.IndexByte(":.=", q[j+1]) >= 0 {
				if k := strings.Index(q[j+2:], string(q[j+1])+"]"); k >= 0 {
					j += 2 + k + 1
				}
			}
		case ']':
			return j
		}
	}
	return -1
}

// classAny reports whether the class matches any byte of set.
func classAny(class, set string) bool {
	for i := 0; i < len(set); i++ {
		if ok, err := path.Match("["+class+"]", set[i:i+1]); ok || err != nil {
			return true
		}
	}
	return false
}

// couldFix reports whether a name matched by toks can end with (suffix
// true) or start with (suffix false) the literal s.
func couldFix(toks []tok, s string, suffix bool) bool {
	for k := 0; k < len(s); k++ {
		ti, si := k, k
		if suffix {
			ti, si = len(toks)-1-k, len(s)-1-k
		}
		if ti < 0 || ti >= len(toks) {
			return false
		}
		t := toks[ti]
		switch t.kind {
		case tokStar:
			return true
		case tokLit:
			if t.c != s[si] {
				return false
			}
		case tokClass:
			if !classAny(t.class, s[si:si+1]) {
				return false
			}
		}
	}
	return true
}

// bashSegs rewrites bash pattern segments into path.Match syntax:
// "[!…]" becomes "[^…]", a bracket with a POSIX class ("[[:alpha:]]")
// becomes "?", an unclosed "[" is literal, and an extglob segment
// ("@(…)", "!(…)", …) becomes anySeg. It returns a reason for a segment
// path.Match still refuses.
func bashSegs(segs []string) ([]string, string) {
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if s == "**" || !hasMeta(s) && !strings.Contains(s, "(") {
			out = append(out, s)
			continue
		}
		if isExtglob(s) {
			out = append(out, anySeg)
			continue
		}
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				b.WriteString(s[i : i+2])
				i++
			case c == '[':
				end := classEnd(s, i)
				switch {
				case end < 0:
					b.WriteString(`\[`)
				case strings.Contains(s[i+1:end], "[:") || strings.Contains(s[i+1:end], "[.") || strings.Contains(s[i+1:end], "[="):
					b.WriteByte('?')
					i = end
				default:
					cl := s[i+1 : end]
					if strings.HasPrefix(cl, "!") {
						cl = "^" + cl[1:]
					}
					b.WriteString("[" + cl + "]")
					i = end
				}
			default:
				b.WriteByte(c)
			}
		}
		q := b.String()
		if _, err := path.Match(q, ""); err != nil {
			return nil, "the glob segment " + quote(s) + " is malformed"
		}
		out = append(out, q)
	}
	return out, ""
}

// isExtglob reports whether s uses bash extended globbing.
func isExtglob(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i+1] == '(' && strings.IndexByte("?*+@!", s[i]) >= 0 {
			return true
		}
	}
	return false
}
