package ifc

import (
	"fmt"
	"github.com/parallax/parallax/internal/glob"
	"github.com/parallax/parallax/internal/memo"
	"path"
	"sort"
	"strings"
)

// Env says where the classifier works: what "~" and "$WORKSPACE" mean.
type Env struct {
	Workspace string // absolute workspace root
	Home      string // absolute home directory
}

// PathLabel is the classification of one path.
type PathLabel struct {
	Level Level
	Rule  string // the path rule's id; "default" when no rule matched
}

// Paths classifies paths with the static rule table, compiled for one
// workspace and home. It is immutable and safe for concurrent use.
type Paths struct {
	ws, home   string
	rules      []PathRule
	trees      map[string][]int // root → rules
	treeList   []globRule       // the same roots as segments, sorted, for globs
	globs      []globRule
	names      map[string][]int // lower-case base name → rules
	nameList   []affix          // the same names in table order, for globs
	suffixes   []affix
	prefixes   []affix
	nameGlobs  []affix
	words      map[string][]int
	containers []container

	// globMemo remembers ClassifyGlob answers: they depend only on the
	// arguments and these tables, which never change after newPaths.
	globMemo *memo.Table[PathLabel]
}

type globRule struct {
	root string
	segs []string
	pats []affix // segs as patterns with their metacharacters known
	rule int
}

type affix struct {
	s    string
	rule int
	glob string // the affix as a segment pattern: "?*s" for a suffix, "s*" for a prefix
	// meta and brack say whether glob holds *?[\ and [\ (segSimple).
	meta, brack bool
	// pre and suf are the literal ends of a name glob: a cheap filter
	// before path.Match.
	pre, suf string
}

// container is the root of a sensitive tree, for reads of a directory
// above it (tar of the home, grep -r of /etc).
type container struct {
	root string
	rule int
}

// NewPaths compiles the rule table for env. Workspace and home must be
// absolute.
func NewPaths(env Env) (*Paths, error) { return newPaths(env, pathRules) }

// newPaths compiles a rule table (tests compile single rules).
func newPaths(env Env, rules []PathRule) (*Paths, error) {
	for _, d := range []struct{ name, v string }{{"workspace", env.Workspace}, {"home", env.Home}} {
		if !path.IsAbs(d.v) {
			return nil, fmt.Errorf("classify paths: %s %q must be an absolute path", d.name, d.v)
		}
	}
	c := &Paths{ws: path.Clean(env.Workspace), home: path.Clean(env.Home), rules: rules,
		trees: map[string][]int{}, names: map[string][]int{}, words: map[string][]int{}, globMemo: memo.New[PathLabel](0)}
	for i := range rules {
		if err := c.add(i); err != nil {
			return nil, err
		}
	}
	sort.Slice(c.containers, func(i, j int) bool { return c.containers[i].root < c.containers[j].root })
	return c, nil
}

// add compiles rule i.
func (c *Paths) add(i int) error {
	r := &c.rules[i]
	for _, p := range r.Patterns {
		switch r.Kind {
		case KindTree, KindGlob:
			abs := c.expand(p)
			if !path.IsAbs(abs) {
				return fmt.Errorf("classify paths: rule %s: pattern %q is not absolute", r.ID, p)
			}
			g := globRule{root: abs, segs: strings.Split(abs[1:], "/"), rule: i}
			for _, s := range g.segs {
				g.pats = append(g.pats, affix{glob: s, meta: strings.ContainsAny(s, "*?[\\"), brack: strings.ContainsAny(s, "[\\")})
			}
			if r.Kind == KindTree {
				c.trees[abs] = append(c.trees[abs], i)
				c.treeList = append(c.treeList, g)
			} else {
				c.globs = append(c.globs, g)
			}
			if r.Level >= Confidential && !under(abs, c.ws) {
				c.containers = append(c.containers, container{root: literalDir(abs), rule: i})
			}
		case KindName:
			c.names[p] = append(c.names[p], i)
			c.nameList = append(c.nameList, affix{s: p, rule: i, glob: p})
		case KindSuffix:
			c.suffixes = append(c.suffixes, affix{s: p, rule: i, glob: "?*" + p})
		case KindPrefix:
			c.prefixes = append(c.prefixes, affix{s: p, rule: i, glob: p + "*"})
		case KindNameGlob:
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("classify paths: rule %s: pattern %q: %w", r.ID, p, err)
			}
			a := affix{s: p, rule: i, glob: p, pre: p[:strings.IndexAny(p+"*", "*?[")]}
			if j := strings.LastIndexAny(p, "*?]"); j >= 0 {
				a.suf = p[j+1:]
			}
			c.nameGlobs = append(c.nameGlobs, a)
		case KindWord:
			c.words[p] = append(c.words[p], i)
		}
	}
	for _, list := range [][]affix{c.nameList, c.suffixes, c.prefixes, c.nameGlobs} {
		for k := range list {
			list[k].meta, list[k].brack = strings.ContainsAny(list[k].glob, "*?[\\"), strings.ContainsAny(list[k].glob, "[\\")
		}
	}
	return nil
}

// expand resolves "~/" and "$WORKSPACE/" at the start of a pattern.
func (c *Paths) expand(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return path.Clean(c.home + p[1:])
	case strings.HasPrefix(p, "$WORKSPACE/"):
		return path.Clean(c.ws + p[len("$WORKSPACE"):])
	}
	return p
}

// match accumulates the rules that match one path.
type match struct {
	rules  []PathRule
	best   int // best rule above Public, -1 if none
	public int // first Public rule, -1 if none
}

func (c *Paths) newMatch() match { return match{rules: c.rules, best: -1, public: -1} }

func (m *match) hit(rule int) {
	l := m.rules[rule].Level
	if l == Public {
		if m.public < 0 {
			m.public = rule
		}
		return
	}
	if m.best < 0 || l > m.rules[m.best].Level {
		m.best = rule
	}
}

func (m *match) label() PathLabel {
	switch {
	case m.best >= 0:
		return PathLabel{m.rules[m.best].Level, m.rules[m.best].ID}
	case m.public >= 0:
		return PathLabel{Public, m.rules[m.public].ID}
	}
	return PathLabel{Internal, ruleDefault}
}

// Classify returns the level of the file or directory at p (absolute,
// cleaned). A relative path is judged by its name only.
func (c *Paths) Classify(p string) PathLabel {
	m := c.newMatch()
	base := path.Base(p)
	lbase := strings.ToLower(base)
	if strings.HasPrefix(p, "/") {
		c.matchTrees(&m, p, lbase)
		for _, g := range c.globs {
			if matchSegs(p, g.segs) && !c.excepted(g.rule, lbase) {
				m.hit(g.rule)
			}
		}
	}
	c.matchName(&m, lbase)
	c.matchWords(&m, p, lbase)
	return m.label()
}

// matchTrees tries p and each of its ancestors as a tree root.
func (c *Paths) matchTrees(m *match, p, lbase string) {
	for q := p; ; {
		for _, r := range c.trees[q] {
			if !c.excepted(r, lbase) {
				m.hit(r)
			}
		}
		i := strings.LastIndexByte(q, '/')
		if i <= 0 {
			if q != "/" {
				for _, r := range c.trees["/"] {
					m.hit(r)
				}
			}
			return
		}
		q = q[:i]
	}
}

// matchName applies the base-name rules.
func (c *Paths) matchName(m *match, lbase string) {
	for _, r := range c.names[lbase] {
		m.hit(r)
	}
	for _, a := range c.suffixes {
		if len(lbase) > len(a.s) && strings.HasSuffix(lbase, a.s) && !c.excepted(a.rule, lbase) {
			m.hit(a.rule)
		}
	}
	for _, a := range c.prefixes {
		if strings.HasPrefix(lbase, a.s) && !c.excepted(a.rule, lbase) {
			m.hit(a.rule)
		}
	}
	for _, a := range c.nameGlobs {
		if !strings.HasPrefix(lbase, a.pre) || !strings.HasSuffix(lbase, a.suf) {
			continue
		}
		if ok, _ := path.Match(a.s, lbase); ok && !c.excepted(a.rule, lbase) {
			m.hit(a.rule)
		}
	}
}

// matchWords applies the document-word rules to a document path.
func (c *Paths) matchWords(m *match, p, lbase string) {
	rel, inWS := c.relative(p)
	ext := ""
	if i := strings.LastIndexByte(lbase, '.'); i > 0 {
		ext = lbase[i+1:]
	}
	if ext == "" && inWS || ext != "" && !docExts[ext] {
		return
	}
	eachWord(rel, func(w []byte) {
		for _, r := range c.words[string(w)] {
			m.hit(r)
		}
	})
}

// relative returns the part of p whose words describe it: below the
// workspace, else below the home, else all of it.
func (c *Paths) relative(p string) (rel string, inWorkspace bool) {
	if under(p, c.ws) {
		return p[len(c.ws):], true
	}
	if under(p, c.home) {
		return p[len(c.home):], false
	}
	return p, false
}

// Contains returns the highest level of a sensitive tree below the
// directory p (a read of p may read it): the home holds ~/.ssh, /etc
// holds /etc/shadow. It returns Public when nothing sensitive lies below.
// Trees inside the workspace (its .parallax, sealed by the guard) do not
// count: reading the workspace as a whole is routine.
func (c *Paths) Contains(p string) PathLabel {
	best := -1
	for _, k := range c.containers {
		if len(k.root) > len(p) && strings.HasPrefix(k.root, p) && (p == "/" || k.root[len(p)] == '/') {
			if best < 0 || c.rules[k.rule].Level > c.rules[best].Level {
				best = k.rule
			}
		}
	}
	if best < 0 {
		return PathLabel{Public, ruleDefault}
	}
	return PathLabel{c.rules[best].Level, c.rules[best].ID}
}

// excepted reports whether rule r leaves the lower-case base name out.
func (c *Paths) excepted(r int, lbase string) bool {
	for _, e := range c.rules[r].Except {
		if ok, _ := path.Match(e, lbase); ok {
			return true
		}
	}
	return false
}

// under reports whether p is root or lies below it.
func under(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, root) && (len(p) == len(root) || p[len(root)] == '/')
}

// matchSegs reports whether the absolute path p has the segments of a
// glob rule, each matching.
func matchSegs(p string, segs []string) bool {
	rest := p[1:]
	for i, s := range segs {
		j := strings.IndexByte(rest, '/')
		seg := rest
		if j >= 0 {
			seg = rest[:j]
		}
		if !glob.HasMeta(s) {
			if s != seg {
				return false
			}
		} else if ok, _ := path.Match(s, seg); !ok {
			return false
		}
		if j < 0 {
			return i == len(segs)-1
		}
		rest = rest[j+1:]
	}
	return false
}

// literalDir returns the longest directory prefix of a pattern without
// wildcards ("/proc/*/environ" → "/proc").
func literalDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	j := strings.LastIndexByte(p[:i], '/')
	if j <= 0 {
		return "/"
	}
	return p[:j]
}
