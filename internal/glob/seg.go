package glob

import (
	"path"
	"strings"
)

// This file holds the segment-wise engine: one pattern segment (no "/")
// against one name, in Go syntax after ToGo, and the intersection of a
// shell glob segment with a path.Match rule segment.

// ToGo rewrites a bash pattern segment into path.Match syntax: "[!…]"
// becomes "[^…]", a set holding a POSIX class ("[[:alpha:]]") becomes
// "?", an unclosed "[" is literal. extglob is true, and q empty, for a
// segment using bash's extended globbing ("@(…)", "!(…)", …), which the
// engine does not model. ok is false for a segment path.Match still
// refuses (a trailing backslash, a bad range).
func ToGo(s string) (q string, extglob, ok bool) {
	if s == "**" || !HasMeta(s) && !strings.Contains(s, "(") {
		return s, false, true
	}
	if isExtglob(s) {
		return "", true, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case c == '[':
			end := ClassEnd(s, i)
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
	q = b.String()
	if _, err := path.Match(q, ""); err != nil {
		return "", false, false
	}
	return q, false, true
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

// ClassEnd returns the index of the "]" closing the set opened at q[i],
// or -1. A "]" first in the set (after an optional "^" or "!") is
// literal; a POSIX class ("[:alpha:]", "[.x.]", "[=x=]") is one unit.
func ClassEnd(q string, i int) int {
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

// MatchSeg reports whether the Go-syntax segment q (ToGo's output)
// matches the name, with the bash leading-dot rule unless dot is set.
// "**" is "*". A malformed segment matches everything (fail closed).
func MatchSeg(q, name string, dot bool) bool {
	if q == name {
		return true
	}
	if q == "**" {
		q = "*"
	}
	if !dot && strings.HasPrefix(name, ".") && !strings.HasPrefix(q, ".") && !strings.HasPrefix(q, `\.`) {
		return false
	}
	if ok, done := SimpleMatch(q, name); done {
		return ok
	}
	ok, err := path.Match(q, name)
	return ok || err != nil
}

// SimpleMatch decides the common segment shapes without path.Match: a
// literal, "*", "*lit", "lit*" and "*lit*", also when every letter is a
// case pair ("*.[tT][xX][tT]", how find -iname arrives). It ignores the
// leading-dot rule (MatchSeg applies it). done is false for the rest.
func SimpleMatch(q, name string) (ok, done bool) {
	if strings.ContainsAny(q, "?[\\") {
		u, ok := Unfold(q)
		if !ok {
			return false, false
		}
		return ShapeMatch(u, name, true)
	}
	return ShapeMatch(q, name, false)
}

// ShapeMatch is SimpleMatch for a pattern without sets; fold compares
// letters case-insensitively (q is then lower-case).
func ShapeMatch(q, name string, fold bool) (ok, done bool) {
	eq := func(a, b string) bool { return a == b || fold && strings.EqualFold(a, b) }
	switch n := strings.Count(q, "*"); {
	case n == 0:
		return eq(q, name), true
	case q == "*":
		return true, true
	case n == 1 && q[0] == '*':
		return len(name) >= len(q)-1 && eq(name[len(name)-len(q)+1:], q[1:]), true
	case n == 1 && q[len(q)-1] == '*':
		return len(name) >= len(q)-1 && eq(name[:len(q)-1], q[:len(q)-1]), true
	case n == 2 && len(q) >= 2 && q[0] == '*' && q[len(q)-1] == '*' && !fold:
		return strings.Contains(name, q[1:len(q)-1]), true
	}
	return false, false
}

// Fold makes a pattern match case-insensitively ("*.txt" →
// "*.[tT][xX][tT]"); "" when it holds sets or escapes.
func Fold(p string) string {
	if strings.ContainsAny(p, "[\\") {
		return ""
	}
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		ch := p[i]
		lo, up := ch|0x20, ch&^0x20
		if lo >= 'a' && lo <= 'z' {
			sb.WriteByte('[')
			sb.WriteByte(lo)
			sb.WriteByte(up)
			sb.WriteByte(']')
			continue
		}
		sb.WriteByte(ch)
	}
	return sb.String()
}

// Unfold reverses Fold: a pattern whose letters are all case pairs
// ("*.[tT][xX][tT]") becomes its lower-case form ("*.txt"), to be matched
// case-insensitively. ok is false without a set, for any other set, a
// bare letter, "?" or an escape.
func Unfold(q string) (string, bool) {
	if strings.ContainsAny(q, "?\\") || !strings.Contains(q, "[") {
		return "", false
	}
	b := make([]byte, 0, len(q))
	for i := 0; i < len(q); i++ {
		if q[i] != '[' {
			if l := q[i] | 0x20; l >= 'a' && l <= 'z' {
				return "", false
			}
			b = append(b, q[i])
			continue
		}
		if i+3 >= len(q) || q[i+3] != ']' || q[i+1]|0x20 != q[i+2]|0x20 || q[i+1] == q[i+2] ||
			q[i+1]|0x20 < 'a' || q[i+1]|0x20 > 'z' {
			return "", false
		}
		b = append(b, q[i+1]|0x20)
		i += 3
	}
	return string(b), true
}

// stok is one character of a segment pattern for SegIntersect.
type stok struct {
	kind byte // 'c' literal, '?' any one character, '*' any run
	c    rune
}

// maxSegWork bounds SegIntersect's table; larger problems answer "may
// intersect" (fail closed).
const maxSegWork = 4096

// segToks splits a segment pattern into characters (runes, as path.Match
// and the shell count them). A set counts as any one character (an
// over-approximation); a backslash escapes the next character.
func segToks(p string) []stok {
	rs := []rune(p)
	out := make([]stok, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			if n := len(out); n == 0 || out[n-1].kind != '*' {
				out = append(out, stok{kind: '*'})
			}
		case '?':
			out = append(out, stok{kind: '?'})
		case '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j < len(rs) {
				out = append(out, stok{kind: '?'})
				i = j
				continue
			}
			out = append(out, stok{kind: 'c', c: c})
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			out = append(out, stok{kind: 'c', c: rs[i]})
		default:
			out = append(out, stok{kind: 'c', c: c})
		}
	}
	return out
}

// HasLiteral reports whether a segment pattern has a literal character.
func HasLiteral(s string) bool {
	for _, t := range segToks(s) {
		if t.kind == 'c' {
			return true
		}
	}
	return false
}

// SegIntersect reports whether some name matches both the shell glob
// segment g and the path.Match rule segment r. Unless dots is set, g
// follows bash: a leading wildcard does not match a leading ".".
func SegIntersect(g, r string, dots bool) bool {
	gm, gb := strings.ContainsAny(g, "*?[\\"), strings.ContainsAny(g, "[\\")
	rm, rb := strings.ContainsAny(r, "*?[\\"), strings.ContainsAny(r, "[\\")
	if ok, done := SegIntersectSimple(g, gm, gb, r, rm, rb, dots); done {
		return ok
	}
	return SegIntersectTable(g, r, dots)
}

// SegIntersectSimple decides the common cases of SegIntersect without the
// table: one side literal, the other free of sets (whose bash syntax,
// "[!x]", path.Match does not share). gm and rm say whether a side holds
// any of *?[\, gb and rb whether it holds [ or \. done is false otherwise.
func SegIntersectSimple(g string, gm, gb bool, r string, rm, rb bool, dots bool) (ok, done bool) {
	switch {
	case !gm && !rm:
		return g == r, true
	case !gm && !rb:
		m, err := path.Match(r, g)
		return m || err != nil, true
	case !rm && !gb:
		if !dots && strings.HasPrefix(r, ".") && (g[0] == '*' || g[0] == '?') {
			return false, true
		}
		m, err := path.Match(g, r)
		return m || err != nil, true
	}
	return false, false
}

// SegIntersectTable is SegIntersect by dynamic programming over the two
// patterns' characters.
func SegIntersectTable(g, r string, dots bool) bool {
	a, b := segToks(g), segToks(r)
	if !dots && len(a) > 0 && a[0].kind != 'c' && len(b) > 0 && b[0].kind == 'c' && b[0].c == '.' {
		return false
	}
	if (len(a)+1)*(len(b)+1) > maxSegWork {
		return true
	}
	memo := make([]int8, (len(a)+1)*(len(b)+1))
	var f func(i, j int) bool
	f = func(i, j int) bool {
		k := i*(len(b)+1) + j
		if memo[k] != 0 {
			return memo[k] > 0
		}
		ok := false
		switch {
		case i == len(a) && j == len(b):
			ok = true
		case i < len(a) && a[i].kind == '*':
			ok = f(i+1, j) || j < len(b) && f(i, j+1)
		case j < len(b) && b[j].kind == '*':
			ok = f(i, j+1) || i < len(a) && f(i+1, j)
		case i < len(a) && j < len(b):
			ok = (a[i].kind == '?' || b[j].kind == '?' || a[i].c == b[j].c) && f(i+1, j+1)
		}
		memo[k] = -1
		if ok {
			memo[k] = 1
		}
		return ok
	}
	return f(0, 0)
}
