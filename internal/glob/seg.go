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

// HasLiteral reports whether a segment pattern has a literal character.
func HasLiteral(s string) bool {
	for _, t := range Compile(s, Go) {
		if t.kind == gLit {
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

// SegIntersectTable is SegIntersect by the automaton: the shell segment
// in Shell syntax (ShellDot when dots is set) against the rule segment in
// Go syntax. A rule segment starting with a literal "." is met by no
// shell segment starting with a wildcard or a set unless dots is set:
// bash matches a leading dot only with a literal one ("[.]env" does not
// match .env, though the automaton lets a set name it).
func SegIntersectTable(g, r string, dots bool) bool {
	syn := ShellDot
	if !dots {
		syn = Shell
	}
	gt, rt := Compile(g, syn), Compile(r, Go)
	if !dots && len(gt) > 0 && gt[0].kind != gLit && len(rt) > 0 && rt[0].kind == gLit && rt[0].c == '.' {
		return false
	}
	return PatternsIntersect(gt, rt)
}
