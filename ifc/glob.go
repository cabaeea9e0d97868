package ifc

import (
	"path"
	"strings"

	"github.com/parallax/parallax/internal/glob"
)

// Shell globs (cat ~/.ssh/*, find's ROOT/**/*.txt) name sets of paths.
// A glob is classified at the highest level any path it may match could
// have: an over-approximation, so that a pattern cannot hide a secret.

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
	if !glob.HasMeta(pat) {
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
	if broad || glob.HasLiteral(last) && last != "**" {
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
	return !glob.HasMeta(last) && c.excepted(rule, last)
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
			(glob.HasMeta(last) || !c.excepted(a.rule, last)) {
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
// glob.SegIntersect learns of it is learnt once.
type segGlob struct {
	g           string
	meta, brack bool // holds *?[\, holds [ or \
	dots        bool
	pre, suf    string     // literal ends, when meta is set and brack is not
	end         glob.Bytes // the bytes a match can end with, when endKnown
	endKnown    bool
}

func newSegGlob(g string, dots bool) segGlob {
	s := segGlob{g: g, meta: strings.ContainsAny(g, "*?[\\"), brack: strings.ContainsAny(g, "[\\"), dots: dots}
	if s.meta && !s.brack {
		s.pre = g[:strings.IndexAny(g, "*?")]
		s.suf = g[strings.LastIndexAny(g, "*?")+1:]
	}
	if s.meta {
		s.end, s.endKnown = glob.LastBytes(g, true)
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

// meets is glob.SegIntersect(s.g, a.glob, s.dots).
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
	if ok, done := glob.SegIntersectSimple(s.g, s.meta, s.brack, a.glob, a.meta, a.brack, s.dots); done {
		return ok
	}
	return glob.SegIntersectTable(s.g, a.glob, s.dots)
}

// globWords applies the document-word rules to the literal words of a
// glob, unless its extension is literal and not a document's.
func (c *Paths) globWords(m *match, pat, last string) {
	if i := strings.LastIndexByte(last, '.'); i > 0 {
		if ext := last[i+1:]; !glob.HasMeta(ext) && !docExts[ext] {
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
