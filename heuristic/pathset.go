package heuristic

import (
	"sort"
	"strings"
	"sync"

	"github.com/parallax/parallax/internal/glob"
	"github.com/parallax/parallax/internal/memo"
)

// pathSet is a set of path patterns, indexed so that a lookup costs a few
// map probes instead of a scan. Patterns come in three shapes:
//
//	"~/rel"   relative to a home directory: the caller's, /root, /home/*, /Users/*
//	"/abs"    absolute
//	"**/base" a base name anywhere ("*" and "?" allowed inside it)
//
// Pattern syntax is glob.Rule: "*" and "?" within a segment, "**" across.
type pathSet struct {
	home     map[string][]listPat // first segment → home-relative patterns
	abs      map[string][]listPat // first segment → absolute patterns (without the leading "/")
	homeStar []listPat            // home["*"]: patterns whose first segment has a wildcard
	absStar  []listPat            // abs["*"]
	base     map[string]bool      // exact base names
	baseG    []listPat            // base-name patterns with wildcards
	all      []string             // every pattern, as written (for glob intersection)

	// views caches, per home directory, the patterns with "~" expanded
	// and their literal ends computed: glob lookups compare those first.
	views sync.Map // home → *setView
}

// setView is a pathSet's patterns made absolute for one home, indexed by
// their literal prefixes.
type setView struct {
	rules  []viewRule
	exact  map[string][]int // literal prefix → rules
	lens   []int            // the distinct literal prefix lengths, ascending
	sorted []prefixRef      // rules by literal prefix

	// globs and scopes remember matchGlob and matchScope answers: both
	// depend only on their arguments and this view's static patterns.
	globs, scopes *memo.Table[bool]
}

type prefixRef struct {
	prefix string
	i      int
}

// index builds the prefix index of v.rules.
func (v *setView) index() {
	v.exact = make(map[string][]int, len(v.rules))
	seen := map[int]bool{}
	for i, r := range v.rules {
		v.exact[r.prefix] = append(v.exact[r.prefix], i)
		v.sorted = append(v.sorted, prefixRef{r.prefix, i})
		if !seen[len(r.prefix)] {
			seen[len(r.prefix)] = true
			v.lens = append(v.lens, len(r.prefix))
		}
	}
	sort.Ints(v.lens)
	sort.Slice(v.sorted, func(a, b int) bool { return v.sorted[a].prefix < v.sorted[b].prefix })
}

// candidates appends the rules whose literal prefix agrees with gp (one is
// a prefix of the other): the only ones a glob with literal prefix gp can
// meet.
func (v *setView) candidates(gp string, out []int) []int {
	for _, n := range v.lens {
		if n > len(gp) {
			break
		}
		out = append(out, v.exact[gp[:n]]...)
	}
	lo := sort.Search(len(v.sorted), func(i int) bool { return v.sorted[i].prefix > gp })
	for i := lo; i < len(v.sorted) && strings.HasPrefix(v.sorted[i].prefix, gp); i++ {
		out = append(out, v.sorted[i].i)
	}
	return out
}

// viewRule is one absolute rule pattern with its literal ends.
type viewRule struct {
	pat, prefix, suffix string
	lower               *viewRule    // the rule lower-cased, for case-insensitive globs
	toks                glob.Pattern // pat compiled in rule syntax
	lastToks            glob.Pattern // last compiled in rule syntax
	lastPrefix          string       // literal ends of last
	lastSuffix          string
	lastByte            int    // the final byte of last when it is a literal, else -1
	slashes             int    // slashes in pat
	dstar               bool   // pat holds "**"
	base                string // the base-name rule ("id_rsa") of a "**/NAME" pattern, else ""
	last                string // the last segment of pat
}

// homesOf are the homes a "~/" pattern stands for.
func homesOf(home string) []string {
	hs := []string{"/root", "/home/*", "/Users/*"}
	if home != "" {
		hs = append([]string{home}, hs...)
	}
	return hs
}

// view returns the set's patterns for home, built once per home.
func (s *pathSet) view(home string) *setView {
	if v, ok := s.views.Load(home); ok {
		return v.(*setView)
	}
	v := &setView{globs: memo.New[bool](0), scopes: memo.New[bool](0)}
	mk := func(p, base string) viewRule {
		last := baseName(p)
		r := viewRule{pat: p, prefix: glob.LiteralPrefix(p), suffix: glob.LiteralSuffix(p), base: base, last: last,
			toks: glob.Compile(p, glob.Rule), lastToks: glob.Compile(last, glob.Rule),
			lastPrefix: glob.LiteralPrefix(last), lastSuffix: glob.LiteralSuffix(last), lastByte: -1,
			slashes: strings.Count(p, "/"), dstar: strings.Contains(p, "**")}
		if n := len(last); n > 0 && last[n-1] != '*' && last[n-1] != '?' {
			r.lastByte = int(last[n-1])
		}
		return r
	}
	add := func(p, base string) {
		r := mk(p, base)
		l := mk(strings.ToLower(p), strings.ToLower(base))
		r.lower = &l
		v.rules = append(v.rules, r)
	}
	for _, p := range s.all {
		switch {
		case strings.HasPrefix(p, "~/"):
			for _, h := range homesOf(home) {
				add(h+p[1:], "")
			}
		case strings.HasPrefix(p, "**/"):
			add("/"+p, p[3:])
		default:
			add(p, "")
		}
	}
	v.index()
	actual, _ := s.views.LoadOrStore(home, v)
	return actual.(*setView)
}

// endsDisjoint is literalsDisjoint with one side's ends precomputed.
func endsDisjoint(pa, sa, pb, sb string) bool {
	n := min(len(pa), len(pb))
	if pa[:n] != pb[:n] {
		return true
	}
	n = min(len(sa), len(sb))
	return sa[len(sa)-n:] != sb[len(sb)-n:]
}

func newPathSet(patterns ...string) *pathSet {
	s := &pathSet{home: map[string][]listPat{}, abs: map[string][]listPat{}, base: map[string]bool{}}
	for _, p := range patterns {
		s.all = append(s.all, p)
		switch {
		case strings.HasPrefix(p, "~/"):
			rel := p[2:]
			s.home[firstSeg(rel)] = append(s.home[firstSeg(rel)], newListPat(rel))
		case strings.HasPrefix(p, "**/"):
			b := p[3:]
			if strings.ContainsAny(b, "*?") {
				s.baseG = append(s.baseG, newListPat(b))
			} else {
				s.base[b] = true
			}
		case strings.HasPrefix(p, "/"):
			rel := p[1:]
			s.abs[firstSeg(rel)] = append(s.abs[firstSeg(rel)], newListPat(rel))
		default:
			panic("heuristic: bad path pattern " + p) // static tables only
		}
	}
	s.homeStar, s.absStar = s.home["*"], s.abs["*"]
	return s
}

// listPat is a pattern of a pathSet list with its longest literal run:
// every name it matches holds that run ("**/.git/hooks/*" needs
// ".git/hooks/"), a test far cheaper than the match.
type listPat struct {
	pat, need string
}

func newListPat(pat string) listPat {
	lp := listPat{pat: pat}
	for _, run := range strings.FieldsFunc(pat, func(r rune) bool { return r == '*' || r == '?' }) {
		if len(run) > len(lp.need) {
			lp.need = run
		}
	}
	return lp
}

// firstSeg returns the first segment of a relative path ("" for "").
// A segment holding a wildcard indexes under "*".
func firstSeg(rel string) string {
	for i := 0; i < len(rel); i++ {
		switch rel[i] {
		case '/':
			return rel[:i]
		case '*', '?':
			return "*"
		}
	}
	return rel
}

// match reports whether the concrete absolute path p is in the set.
func (s *pathSet) match(p, home string) bool {
	if len(p) == 0 || p[0] != '/' {
		return false
	}
	rel := p[1:]
	if matchList(s.abs[firstSeg(rel)], rel) || matchList(s.absStar, rel) {
		return true
	}
	if hr, ok := homeRel(p, home); ok {
		if matchList(s.home[firstSeg(hr)], hr) || matchList(s.homeStar, hr) {
			return true
		}
	}
	b := baseName(p)
	if s.base[b] {
		return true
	}
	return matchList(s.baseG, b)
}

func matchList(patterns []listPat, name string) bool {
	for _, lp := range patterns {
		if strings.Contains(name, lp.need) && glob.Match(lp.pat, name) {
			return true
		}
	}
	return false
}

// matchGlob reports whether the shell glob g could match a path in the
// set. Home patterns are tried under every home a glob could reach.
func (s *pathSet) matchGlob(g, home string) bool {
	v := s.view(home)
	return v.globs.Do(g, func() bool { return v.matchGlob(g) })
}

// matchGlob is pathSet.matchGlob without the memo.
func (v *setView) matchGlob(g string) bool {
	fold := false
	if i := strings.LastIndexByte(g, '/'); i >= 0 {
		if u, ok := glob.Unfold(g[i+1:]); ok {
			// find -iname: match the whole path case-insensitively (a
			// superset of what the folded pattern matches).
			g, fold = strings.ToLower(g[:i+1])+u, true
		}
	}
	gp, gs, gb := glob.LiteralPrefix(g), glob.LiteralSuffix(g), baseName(g)
	gEnd, gEndKnown := glob.LastBytes(gb, true)
	gSlashes := strings.Count(g, "/")
	var gt glob.Pattern
	var idx []int
	if !fold {
		var buf [32]int
		idx = v.candidates(gp, buf[:0])
	}
	for k := 0; ; k++ {
		var r *viewRule
		switch {
		case fold && k < len(v.rules):
			r = v.rules[k].lower
		case !fold && k < len(idx):
			r = &v.rules[idx[k]]
		default:
			return false
		}
		if endsDisjoint(gp, gs, r.prefix, r.suffix) {
			continue
		}
		if gEndKnown && r.lastByte >= 0 && !gEnd.Has(byte(r.lastByte)) {
			continue // "*.[ch]" cannot end like "id_rsa"
		}
		if r.base != "" && !baseRuleMeetsGlob(r.base, gb) {
			continue
		}
		if glob.IntersectKnown(g, gSlashes, &gt, r.pat, r.slashes, r.dstar, r.toks) {
			return true
		}
	}
}

// matchScope reports whether a filtered find under dir (name is its
// -name pattern, "" for none) can reach a path in the set. A name filter
// must name the file the rule is about: "*.json" meets config.json,
// "id_rsa" meets id_rsa, "*.txt" meets nothing; directory-tree rules
// ("~/.gnupg/**") count only for unfiltered finds.
func (s *pathSet) matchScope(dir, name, home string) bool {
	v := s.view(home)
	if strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return v.matchScope(dir, name) // the key would be ambiguous
	}
	var kb [256]byte
	key := append(append(append(kb[:0], dir...), 0), name...)
	return v.scopes.DoBytes(key, func() bool { return v.matchScope(dir, name) })
}

// matchScope is pathSet.matchScope without the memo.
func (v *setView) matchScope(dir, name string) bool {
	fold := false
	if u, ok := glob.Unfold(name); ok {
		name, fold = u, true // find -iname: compare lower-cased
	}
	np, ns := glob.LiteralPrefix(name), glob.LiteralSuffix(name)
	ext, isExt := strings.CutPrefix(name, "*")
	isExt = isExt && strings.HasPrefix(ext, ".") && !strings.ContainsAny(ext, "*?[")
	var nt glob.Pattern // name compiled once, for the rules that need the automaton
	endSet, endKnown := glob.LastBytes(name, true)
	var buf [32]int
	for _, i := range v.candidates(dir, buf[:0]) {
		r := v.rules[i]
		if r.pat != dir && !reaches(dir, r.pat) {
			continue
		}
		if name == "" {
			return true
		}
		if fold {
			r = *r.lower
		}
		switch base := r.last; {
		case base == "**" || base == "*":
			continue // a whole directory: the guard judges trees that reach it
		case isExt:
			if strings.HasSuffix(base, ext) {
				return true
			}
		case endsDisjoint(np, ns, r.lastPrefix, r.lastSuffix):
		case endKnown && r.lastByte >= 0 && !endSet.Has(byte(r.lastByte)):
			// "*.[ch]" cannot end like "id_rsa".
		default:
			if nt == nil {
				nt = glob.Compile(name, glob.Rule)
			}
			if glob.PatternsIntersect(nt, r.lastToks) {
				return true
			}
		}
	}
	return false
}

// has reports whether a path use (concrete or glob) may be in the set.
func (s *pathSet) has(p string, glob bool, home string) bool {
	if glob {
		return s.matchGlob(p, home)
	}
	return s.match(p, home)
}

// homeRel returns p relative to the home directory it lies in: the
// caller's home, /root, /home/<user> or /Users/<user>. ok is false when p
// is in no home; rel is "" for the home itself.
func homeRel(p, home string) (rel string, ok bool) {
	if home != "" && home != "/" {
		if r, ok := under(p, home); ok {
			return r, true
		}
	}
	if r, ok := under(p, "/root"); ok {
		return r, true
	}
	for _, base := range [...]string{"/home/", "/Users/"} {
		if strings.HasPrefix(p, base) {
			rest := p[len(base):]
			if rest == "" {
				return "", false
			}
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				return "", true
			}
			return rest[i+1:], true
		}
	}
	return "", false
}

// under reports whether p is dir or inside it, and returns p relative to
// dir ("" for dir itself). dir is absolute and clean.
func under(p, dir string) (rel string, ok bool) {
	if dir == "/" {
		if strings.HasPrefix(p, "/") {
			return p[1:], true
		}
		return "", false
	}
	if !strings.HasPrefix(p, dir) {
		return "", false
	}
	if len(p) == len(dir) {
		return "", true
	}
	if p[len(dir)] != '/' {
		return "", false
	}
	return p[len(dir)+1:], true
}

// inside reports whether p is dir or below it.
func inside(p, dir string) bool {
	_, ok := under(p, dir)
	return ok
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// tilde renders p for a reason: the caller's home becomes "~".
func tilde(p, home string) string {
	if home != "" && home != "/" {
		if r, ok := under(p, home); ok {
			if r == "" {
				return "~"
			}
			return "~/" + r
		}
	}
	return p
}

// baseRuleMeetsGlob reports whether a base-name rule is named by a glob
// base closely enough to count: a glob that only meets "*.tfstate"
// because both ends are open ("config-*") does not; "*.tfstate",
// "prod.tfstate" and "Cook*" do. Without this, every "dir/*" would match
// every base-name rule.
func baseRuleMeetsGlob(rule, gbase string) bool {
	if strings.HasPrefix(rule, "*") {
		return strings.Contains(gbase, strings.TrimLeft(rule, "*"))
	}
	return literalBytes(gbase) >= 2
}

// literalBytes counts the bytes of a glob segment that are not wildcards.
func literalBytes(seg string) int {
	n := 0
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '*', '?', '[', ']':
		default:
			n++
		}
	}
	return n
}

// reaches reports whether the rule pattern x may name a path at or below
// the literal directory dir: x's leading segments must match dir's, or
// reach a "**" first.
func reaches(dir, x string) bool {
	if dir == "/" {
		return true
	}
	d, r := strings.Trim(dir, "/"), strings.Trim(x, "/")
	for d != "" {
		if r == "" {
			return false
		}
		ds, xs := d, r
		if i := strings.IndexByte(d, '/'); i >= 0 {
			ds, d = d[:i], d[i+1:]
		} else {
			d = ""
		}
		if i := strings.IndexByte(r, '/'); i >= 0 {
			xs, r = r[:i], r[i+1:]
		} else {
			r = ""
		}
		if xs == "**" {
			return true
		}
		if !glob.Match(xs, ds) {
			return false
		}
	}
	return true
}
