package ifc

import (
	"path"
	"strings"

	"github.com/parallax/parallax/internal/shglob"
)

// Shell globs (cat ~/.ssh/*, find's ROOT/**/*.txt) name sets of paths.
// A glob is classified at the highest level any path it may match could
// have: an over-approximation, so that a pattern cannot hide a secret.

// tok is one element of a single-segment pattern.
type tok struct {
	kind byte // 'c' literal, '?' any one character, '*' any run
	c    rune
}

// maxGlobWork bounds the intersection table; larger problems answer
// "may intersect" (fail closed).
const maxGlobWork = 4096

// toks splits a single-segment pattern into characters (runes, as
// path.Match and the shell count them). A character class counts as any
// one character (over-approximation); a backslash escapes the next one.
func toks(p string) []tok {
	rs := []rune(p)
	out := make([]tok, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			if n := len(out); n == 0 || out[n-1].kind != '*' {
				out = append(out, tok{kind: '*'})
			}
		case '?':
			out = append(out, tok{kind: '?'})
		case '[':
			j := i + 1
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j < len(rs) {
				out = append(out, tok{kind: '?'})
				i = j
				continue
			}
			out = append(out, tok{kind: 'c', c: c})
		case '\\':
			if i+1 < len(rs) {
				i++
			}
			out = append(out, tok{kind: 'c', c: rs[i]})
		default:
			out = append(out, tok{kind: 'c', c: c})
		}
	}
	return out
}

// segIntersect reports whether some segment matches both the shell glob
// g and the rule pattern r. Unless dots is set, the glob follows the
// shell: a leading wildcard does not match a leading ".".
func segIntersect(g, r string, dots bool) bool {
	if ok, done := segIntersectSimple(g, r, dots); done {
		return ok
	}
	return segIntersectTable(g, r, dots)
}

// segIntersectTable is segIntersect by dynamic programming over the two
// patterns' characters.
func segIntersectTable(g, r string, dots bool) bool {
	a, b := toks(g), toks(r)
	if !dots && len(a) > 0 && a[0].kind != 'c' && len(b) > 0 && b[0].kind == 'c' && b[0].c == '.' {
		return false
	}
	if (len(a)+1)*(len(b)+1) > maxGlobWork {
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

// segIntersectSimple decides the common cases without the table: one
// side literal, the other free of brackets (whose shell syntax, [!x],
// path.Match does not share). done is false otherwise.
func segIntersectSimple(g, r string, dots bool) (ok, done bool) {
	return segSimple(g, strings.ContainsAny(g, "*?[\\"), strings.ContainsAny(g, "[\\"),
		r, strings.ContainsAny(r, "*?[\\"), strings.ContainsAny(r, "[\\"), dots)
}

// segSimple is segIntersectSimple with both sides' metacharacters known.
func segSimple(g string, gm, gbrack bool, r string, rm, rbrack bool, dots bool) (ok, done bool) {
	switch {
	case !gm && !rm:
		return g == r, true
	case !gm && !rbrack:
		m, err := path.Match(r, g)
		return m || err != nil, true
	case !rm && !gbrack:
		if !dots && strings.HasPrefix(r, ".") && (g[0] == '*' || g[0] == '?') {
			return false, true
		}
		m, err := path.Match(g, r)
		return m || err != nil, true
	}
	return false, false
}

// hasMeta reports whether s holds glob metacharacters.
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// hasLiteral reports whether a segment pattern has any literal character.
func hasLiteral(s string) bool {
	for _, t := range toks(s) {
		if t.kind == 'c' {
			return true
		}
	}
	return false
}

// reach reports whether a path matching the glob segments may be the
// rule path (exact) or lie at or below it (tree). A "**" segment of a
// recursive glob matches any run of segments: it reaches the rule path
// only when deep is set.
func reach(segs []segGlob, rule []affix, exact, recursive, deep bool) bool {
	for i := range rule {
		if i >= len(segs) {
			return false
		}
		if recursive && segs[i].g == "**" {
			return deep
		}
		if !segs[i].meets(&rule[i]) {
			return false
		}
	}
	if len(segs) == len(rule) || !exact {
		return true
	}
	for _, s := range segs[len(rule):] {
		if recursive && s.g == "**" {
			return deep
		}
	}
	return false
}

// ClassifyGlob returns the highest level a path matching the shell glob
// pat may have. recursive marks a find-style set (shell.PathUse.Recursive):
// "**" matches any run of segments and wildcards match dot names.
//
// broad says what the level is for. Flows (broad) assume the worst: a
// "**" reaches every sensitive tree below, a bare "*" may be any secret
// name. For the session taint (not broad) a "**" does not reach trees
// below the glob's literal directory, name rules need a literal byte in
// the last segment ("cat *" is judged by the content it showed), and a
// dot name needs a literal leading dot (find -name '*.txt' is not taken
// to show .env.txt).
// Public rules count only when every match is public: a tree rule whose
// root holds the glob's literal directory. Trees inside the workspace
// (its sealed .parallax) are reached only by name, never by "**".
func (c *Paths) ClassifyGlob(pat string, recursive, broad bool) PathLabel {
	if !hasMeta(pat) {
		return c.Classify(pat)
	}
	// The key is the pattern, a NUL and one byte for the two flags:
	// two keys are equal only if their patterns and flags are.
	var kb [256]byte
	key := append(append(kb[:0], pat...), 0, '0'+(boolBit(recursive)|boolBit(broad)<<1))
	return c.globMemo.DoBytes(key, func() PathLabel { return c.classifyGlob(pat, recursive, broad) })
}

func boolBit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// classifyGlob is ClassifyGlob without the memo.
func (c *Paths) classifyGlob(pat string, recursive, broad bool) PathLabel {
	m := c.newMatch()
	var segs []string
	if strings.HasPrefix(pat, "/") {
		segs = strings.Split(pat[1:], "/")
	} else {
		segs = []string{path.Base(pat)}
	}
	last := strings.ToLower(segs[len(segs)-1])
	gsegs := make([]segGlob, len(segs))
	for i, s := range segs {
		gsegs[i] = newSegGlob(s, recursive)
	}
	if strings.HasPrefix(pat, "/") {
		dir := literalDir(pat)
		for _, t := range c.treeList {
			if c.rules[t.rule].Level == Public {
				if under(dir, t.root) {
					m.hit(t.rule)
				}
				continue
			}
			deep := broad && !under(t.root, c.ws)
			if reach(gsegs, t.pats, false, recursive, deep) && !c.globExcepted(t.rule, segs, len(t.segs), last) {
				m.hit(t.rule)
			}
		}
		for _, g := range c.globs {
			if reach(gsegs, g.pats, true, recursive, broad) {
				m.hit(g.rule)
			}
		}
	}
	if broad || hasLiteral(last) && last != "**" {
		c.globNames(&m, last, recursive && broad)
	}
	c.globWords(&m, pat, last)
	return m.label()
}

// globExcepted reports whether every path the glob matches below a tree
// root is left out by the rule (cat ~/.ssh/*.pub).
func (c *Paths) globExcepted(rule int, segs []string, depth int, last string) bool {
	if len(segs) != depth+1 {
		return false
	}
	for _, e := range c.rules[rule].Except {
		if e == last {
			return true
		}
	}
	return !hasMeta(last) && c.excepted(rule, last)
}

// globNames applies the base-name rules to a glob's last segment.
func (c *Paths) globNames(m *match, last string, dots bool) {
	if last == "**" {
		last = "*"
		dots = true
	}
	g := newSegGlob(last, dots)
	for _, n := range c.nameList {
		if c.rules[n.rule].Level > Public && g.meets(&n) {
			m.hit(n.rule)
		}
	}
	for _, a := range c.suffixes {
		if c.rules[a.rule].Level > Public && g.meets(&a) {
			m.hit(a.rule)
		}
	}
	for _, a := range c.prefixes {
		if c.rules[a.rule].Level > Public && g.meets(&a) &&
			(hasMeta(last) || !c.excepted(a.rule, last)) {
			m.hit(a.rule)
		}
	}
	for _, a := range c.nameGlobs {
		if c.rules[a.rule].Level > Public && g.meets(&a) {
			m.hit(a.rule)
		}
	}
}

// segGlob is one glob segment judged against many rule segments: what
// segIntersect learns of it is learnt once.
type segGlob struct {
	g           string
	meta, brack bool // holds *?[\, holds [ or \
	dots        bool
	pre, suf    string       // literal ends, when meta is set and brack is not
	end         shglob.Bytes // the bytes a match can end with, when endKnown
	endKnown    bool
}

func newSegGlob(g string, dots bool) segGlob {
	s := segGlob{g: g, meta: strings.ContainsAny(g, "*?[\\"), brack: strings.ContainsAny(g, "[\\"), dots: dots}
	if s.meta && !s.brack {
		s.pre = g[:strings.IndexAny(g, "*?")]
		s.suf = g[strings.LastIndexAny(g, "*?")+1:]
	}
	if s.meta {
		s.end, s.endKnown = shglob.LastBytes(g, true)
	}
	return s
}

// lastLiteral returns the byte every match of a rule segment ends with,
// when its last character is a plain literal.
func lastLiteral(glob string) (byte, bool) {
	n := len(glob)
	if n == 0 {
		return 0, false
	}
	switch c := glob[n-1]; {
	case c == '*' || c == '?' || c == ']' || n >= 2 && glob[n-2] == '\\':
		return 0, false
	default:
		return c, true
	}
}

// meets is segIntersect(s.g, a.glob, s.dots).
func (s segGlob) meets(a *affix) bool {
	if s.g == "*" {
		// A bare star meets every name but a dot name it may not start.
		return s.dots || !strings.HasPrefix(a.glob, ".") && !strings.HasPrefix(a.glob, `\.`)
	}
	if s.meta && !s.brack && !a.meta && (!strings.HasPrefix(a.glob, s.pre) || !strings.HasSuffix(a.glob, s.suf)) {
		return false // a literal name must carry the glob's literal ends
	}
	if s.endKnown {
		if c, ok := lastLiteral(a.glob); ok && !s.end.Has(c) {
			return false // "*.[ch]" cannot end like "id_rsa"
		}
	}
	if ok, done := segSimple(s.g, s.meta, s.brack, a.glob, a.meta, a.brack, s.dots); done {
		return ok
	}
	return segIntersectTable(s.g, a.glob, s.dots)
}

// globWords applies the document-word rules to the literal words of a
// glob, unless its extension is literal and not a document's.
func (c *Paths) globWords(m *match, pat, last string) {
	if i := strings.LastIndexByte(last, '.'); i > 0 {
		if ext := last[i+1:]; !hasMeta(ext) && !docExts[ext] {
			return
		}
	}
	rel, _ := c.relative(pat)
	eachWord(rel, func(w []byte) {
		for _, r := range c.words[string(w)] {
			m.hit(r)
		}
	})
}
