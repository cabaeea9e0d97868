package glob

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Match reports whether name matches the rule pattern, without
// allocating. Rule syntax: "**" (any run, "/" included), "*" (any run
// without "/"), "?" (one character that is not "/"); every other
// character is literal. Characters are UTF-8; a byte that is not valid
// UTF-8 is a character of its own, as the automaton reads it.
func Match(pattern, name string) bool {
	for len(pattern) > 0 {
		switch pc := pattern[0]; pc {
		case '*':
			if len(pattern) > 1 && pattern[1] == '*' {
				rest := pattern[2:]
				for i := 0; ; i++ {
					if Match(rest, name[i:]) {
						return true
					}
					if i == len(name) {
						return false
					}
					if name[i] >= utf8.RuneSelf {
						i += charLen(name[i:]) - 1
					}
				}
			}
			rest := pattern[1:]
			for i := 0; ; i++ {
				if Match(rest, name[i:]) {
					return true
				}
				if i == len(name) || name[i] == '/' {
					return false
				}
				if name[i] >= utf8.RuneSelf {
					i += charLen(name[i:]) - 1
				}
			}
		case '?':
			if len(name) == 0 || name[0] == '/' {
				return false
			}
			if name[0] >= utf8.RuneSelf {
				name = name[charLen(name)-1:] // the rest of the character
			}
		default:
			if len(name) == 0 || name[0] != pc {
				return false
			}
			if pc >= utf8.RuneSelf {
				r, n := decode(pattern)
				if nr, nn := decode(name); nr != r || nn != n {
					return false
				}
				pattern, name = pattern[n-1:], name[n-1:]
			}
		}
		pattern, name = pattern[1:], name[1:]
	}
	return len(name) == 0
}

// charLen is the length in bytes of the character s starts with.
func charLen(s string) int {
	if s[0] < utf8.RuneSelf {
		return 1
	}
	_, n := decode(s)
	return n
}

// invalidBase numbers the bytes that are not valid UTF-8 as characters
// no rune can be.
const invalidBase = utf8.MaxRune + 1

// decode returns the character s starts with and its length in bytes.
func decode(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return invalidBase + rune(s[0]), 1
	}
	return r, n
}

// Token kinds of a compiled glob.
const (
	gLit   = iota // one literal character
	gOne          // one character, not "/"
	gStar         // any run without "/"
	gDStar        // any run
)

type gtok struct {
	kind  uint8
	c     rune
	fresh bool // shell glob token at a segment start: cannot match a leading "."
}

// Compile tokenises a pattern in the given syntax. In Rule syntax "**"
// crosses segments and every byte but "*" and "?" is literal. In the
// others "[...]" is one character (approximated as any character, the
// safe direction), "\x" is a literal x and "**" is one star; in Shell a
// wildcard at a segment start does not match a leading dot (bash without
// dotglob), in ShellDot and Go it does.
func Compile(p string, syn Syntax) Pattern {
	shellSyntax := syn != Rule // sets, escapes, "**" a star
	fresh := syn == Shell      // the leading-dot rule
	out := make(Pattern, 0, len(p))
	for i := 0; i < len(p); i++ {
		segStart := i == 0 || p[i-1] == '/'
		c := p[i]
		switch {
		case c == '*' && !shellSyntax && i+1 < len(p) && p[i+1] == '*':
			out = append(out, gtok{kind: gDStar})
			i++
		case c == '*':
			if n := len(out); shellSyntax && n > 0 && out[n-1].kind == gStar {
				continue // "**" in a shell glob is one star (trees are the guard's)
			}
			out = append(out, gtok{kind: gStar, fresh: fresh && segStart})
		case c == '?':
			out = append(out, gtok{kind: gOne, fresh: fresh && segStart})
		case c == '[' && shellSyntax:
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) { // unterminated: a literal "["
				out = append(out, gtok{kind: gLit, c: '['})
				continue
			}
			out = append(out, gtok{kind: gOne}) // a set may name "."
			i = j
		case c == '\\' && shellSyntax && i+1 < len(p):
			r, n := decode(p[i+1:])
			out = append(out, gtok{kind: gLit, c: r})
			i += n
		default:
			r, n := decode(p[i:])
			out = append(out, gtok{kind: gLit, c: r})
			i += n - 1
		}
	}
	return out
}

// gstate is a position in a compiled glob; started marks a star that has
// consumed at least one character (so the leading-dot rule no longer
// applies).
type gstate struct {
	i       int
	started bool
}

// closure adds s and every state reachable from it without input.
func closure(toks Pattern, s gstate, out []gstate) []gstate {
	for {
		out = append(out, s)
		if s.i >= len(toks) || (toks[s.i].kind != gStar && toks[s.i].kind != gDStar) {
			return out
		}
		s = gstate{i: s.i + 1}
	}
}

// other stands for every character that is not "/", not "." and no
// literal of either pattern; no character is negative.
const other rune = -1

// step returns the states after consuming character c (or other).
func step(toks Pattern, s gstate, c rune, out []gstate) []gstate {
	if s.i >= len(toks) {
		return out
	}
	t := toks[s.i]
	ok := false
	switch t.kind {
	case gLit:
		ok = c == t.c
	case gOne, gStar:
		ok = c != '/' && !(t.fresh && !s.started && c == '.')
	case gDStar:
		ok = true
	}
	if !ok {
		return out
	}
	if t.kind == gStar || t.kind == gDStar {
		return closure(toks, gstate{i: s.i, started: true}, out)
	}
	return closure(toks, gstate{i: s.i + 1}, out)
}

// Intersect reports whether some path matches both shellGlob (shell
// syntax) and rule (rule syntax). It explores the product automaton.
func Intersect(shellGlob, rule string) bool {
	var gt Pattern
	return IntersectCompiled(shellGlob, &gt, rule, nil)
}

// IntersectCompiled is Intersect with compiled forms: *gt is the shell
// glob's, compiled here when still nil and kept for the next rule; rt is
// the rule's, or nil to compile it.
func IntersectCompiled(shellGlob string, gt *Pattern, rule string, rt Pattern) bool {
	if LiteralsDisjoint(shellGlob, rule) {
		return false
	}
	return IntersectKnown(shellGlob, strings.Count(shellGlob, "/"), gt, rule, strings.Count(rule, "/"),
		strings.Contains(rule, "**"), rt)
}

// IntersectKnown is IntersectCompiled after the literal ends were compared,
// with both patterns' slash counts and whether the rule holds "**" known.
func IntersectKnown(shellGlob string, gSlashes int, gt *Pattern, rule string, rSlashes int, rDStar bool, rt Pattern) bool {
	if !rDStar {
		return gSlashes == rSlashes && segmentsIntersect(shellGlob, rule)
	}
	if leadDisjoint(shellGlob, rule) || tailDisjoint(shellGlob, rule) {
		return false
	}
	// A shell glob never matches "/" with a wildcard: its paths have
	// exactly its slashes, and a rule's paths at least the rule's.
	if gSlashes < rSlashes {
		return false
	}
	if *gt == nil {
		*gt = Compile(shellGlob, Shell)
	}
	if rt == nil {
		rt = Compile(rule, Rule)
	}
	return PatternsIntersect(*gt, rt)
}

// segmentsIntersect decides a rule without "**" whose slash count is the
// shell glob's: neither side crosses "/", so the paths have the same
// segments, and each pair of segments must share a name.
func segmentsIntersect(shellGlob, rule string) bool {
	a, b := shellGlob, rule
	for a != "" || b != "" {
		var sa, sb string
		sa, a = cutSegment(a, false)
		sb, b = cutSegment(b, false)
		if sa == sb {
			continue
		}
		if ok, done := SegPairMeets(sa, sb); done {
			if !ok {
				return false
			}
			continue
		}
		if LiteralsDisjoint(sa, sb) || endsApart(sa, sb) || !PatternsIntersect(Compile(sa, Shell), Compile(sb, Rule)) {
			return false
		}
	}
	return true
}

// SegPairMeets decides the common segment pairs without the automaton,
// exactly as it would: a bare "*" (which skips dot names) or a literal on
// the shell side, a bare "*" on the rule side. done is false otherwise.
func SegPairMeets(shellSeg, ruleSeg string) (ok, done bool) {
	switch {
	case !utf8.ValidString(shellSeg) || !utf8.ValidString(ruleSeg):
		return false, false // the automaton assumes such patterns meet
	case shellSeg == "*":
		return !strings.HasPrefix(ruleSeg, "."), true
	case !strings.ContainsAny(shellSeg, "*?[\\"):
		return Match(ruleSeg, shellSeg), true
	case ruleSeg == "*":
		return true, true
	}
	return false, false
}

// endsApart reports that a shell glob segment's last character can never
// be a rule segment's last character ("*.[ch]" and "id_rsa").
func endsApart(shellSeg, ruleSeg string) bool {
	n := len(ruleSeg)
	if n == 0 || ruleSeg[n-1] == '*' || ruleSeg[n-1] == '?' {
		return false
	}
	set, ok := LastBytes(shellSeg, true)
	return ok && !set.Has(ruleSeg[n-1])
}

// leadDisjoint compares a shell glob and a rule with "**" segment by
// segment, up to the rule's first "**": a pair of segments whose literal
// ends disagree proves the patterns disjoint (a shell glob's wildcards do
// not cross "/"). It says false when unsure.
func leadDisjoint(shellGlob, rule string) bool { return segsDisjoint(shellGlob, rule, false) }

// tailDisjoint is leadDisjoint from the last segments backwards, up to
// the rule's last "**".
func tailDisjoint(shellGlob, rule string) bool { return segsDisjoint(shellGlob, rule, true) }

func segsDisjoint(a, b string, fromEnd bool) bool {
	for a != "" && b != "" {
		var sa, sb string
		sa, a = cutSegment(a, fromEnd)
		sb, b = cutSegment(b, fromEnd)
		if strings.Contains(sb, "**") {
			return false
		}
		if sa != sb && (LiteralsDisjoint(sa, sb) || dotHidden(sa, sb) || endsApart(sa, sb)) {
			return true
		}
	}
	return false
}

// dotHidden reports a shell glob segment whose leading wildcard cannot
// match the leading dot a rule segment requires (bash without dotglob:
// "*" does not match ".parallax").
func dotHidden(shellSeg, ruleSeg string) bool {
	return shellSeg != "" && (shellSeg[0] == '*' || shellSeg[0] == '?') && strings.HasPrefix(ruleSeg, ".")
}

// cutSegment splits the first (or, fromEnd, the last) segment off p.
func cutSegment(p string, fromEnd bool) (seg, rest string) {
	if fromEnd {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			return p[i+1:], p[:i]
		}
		return p, ""
	}
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

// RuleIntersect is Intersect for two rule-syntax patterns.
func RuleIntersect(x, y string) bool {
	if LiteralsDisjoint(x, y) {
		return false
	}
	return PatternsIntersect(Compile(x, Rule), Compile(y, Rule))
}

// LiteralsDisjoint is a cheap test that two patterns share no path: their
// literal prefixes (up to the first wildcard) disagree, or their literal
// suffixes (after the last wildcard) do. It never says "disjoint" wrongly;
// when unsure it says false and the automaton decides.
func LiteralsDisjoint(a, b string) bool {
	pa, pb := LiteralPrefix(a), LiteralPrefix(b)
	n := min(len(pa), len(pb))
	if pa[:n] != pb[:n] {
		return true
	}
	sa, sb := LiteralSuffix(a), LiteralSuffix(b)
	n = min(len(sa), len(sb))
	return sa[len(sa)-n:] != sb[len(sb)-n:]
}

// isPatternMeta reports a byte that may start something other than a
// literal in any syntax: a wildcard, a set, an escape, a brace, an
// extglob operator.
func isPatternMeta(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '{' || c == '\\' || c == ']' || c == '}' || c == '!' || c == '@' || c == '+' || c == '('
}

// LiteralPrefix is the part of a pattern before its first byte that may
// not be literal (isPatternMeta).
func LiteralPrefix(p string) string {
	for i := 0; i < len(p); i++ {
		if isPatternMeta(p[i]) {
			return p[:i]
		}
	}
	return p
}

// LiteralSuffix is the part of a pattern after its last byte that may
// not be literal.
func LiteralSuffix(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if isPatternMeta(p[i]) {
			return p[i+1:]
		}
	}
	return p
}

// PatternsIntersect reports whether some string is accepted by both
// compiled patterns: a search of the product automaton over an alphabet
// of the patterns' literal characters, "/", "." and one standing for
// every other. A pattern that is not UTF-8 meets every pattern.
func PatternsIntersect(a, b Pattern) bool {
	var abc [32]rune
	alphabet := append(abc[:0], other, '/', '.')
	seen := [utf8.RuneSelf]bool{'/': true, '.': true}
	for _, toks := range [2]Pattern{a, b} {
		for _, t := range toks {
			switch {
			case t.kind != gLit:
			case t.c >= invalidBase:
				// Not UTF-8: bash matches such a pattern byte by byte,
				// where a wildcard may take half a character ("\xc3*"
				// names "é"). Assume the patterns meet.
				return true
			case t.c < utf8.RuneSelf:
				if !seen[t.c] {
					seen[t.c] = true
					alphabet = append(alphabet, t.c)
				}
			case !slices.Contains(alphabet, t.c):
				alphabet = append(alphabet, t.c)
			}
		}
	}
	type pair struct{ x, y gstate }
	// visited is a bit set over (state of a) × (state of b); a state is
	// its position and whether a star has started.
	nb := 2 * (len(b) + 1)
	var small [64]uint64
	words := (2*(len(a)+1)*nb + 63) / 64
	visitedBits := small[:0]
	if words <= len(small) {
		visitedBits = small[:words]
	} else {
		visitedBits = make([]uint64, words)
	}
	idx := func(p pair) int {
		k := (2*p.x.i+b2i(p.x.started))*nb + 2*p.y.i + b2i(p.y.started)
		return k
	}
	isVisited := func(p pair) bool { k := idx(p); return visitedBits[k/64]&(1<<(k%64)) != 0 }
	// The search fits these buffers for the patterns seen in practice:
	// nothing escapes to the heap unless it outgrows them.
	var qb [64]pair
	var xb, yb [16]gstate
	queue, xs, ys := qb[:0], xb[:0], yb[:0]
	for _, x := range closure(a, gstate{}, xs) {
		for _, y := range closure(b, gstate{}, ys) {
			queue = append(queue, pair{x, y})
		}
	}
	for len(queue) > 0 {
		p := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if isVisited(p) {
			continue
		}
		k := idx(p)
		visitedBits[k/64] |= 1 << (k % 64)
		if p.x.i == len(a) && p.y.i == len(b) {
			return true
		}
		for _, c := range alphabet {
			xs = step(a, p.x, c, xs[:0])
			if len(xs) == 0 {
				continue
			}
			ys = step(b, p.y, c, ys[:0])
			for _, x := range xs {
				for _, y := range ys {
					if q := (pair{x, y}); !isVisited(q) {
						queue = append(queue, q)
					}
				}
			}
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
