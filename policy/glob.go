package policy

import (
	"github.com/parallax/parallax/internal/glob"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globKind is the shape of a compiled path pattern; the two simple shapes
// are matched without calling doublestar.
type globKind uint8

const (
	globExact   globKind = iota // no metacharacter: equality
	globTree                    // "D/**" with D literal: D itself or anything under it
	globGeneral                 // anything else: literal prefix/suffix filter, then doublestar
)

// pathPat is a compiled path pattern (doublestar syntax, variables expanded).
type pathPat struct {
	written string // as written in the policy
	pat     string // expanded pattern
	kind    globKind
	lit     string   // unescaped literal prefix (the whole path for globExact, D for globTree)
	suffix  string   // unescaped literal suffix after the last metacharacter
	dirs    []string // literal directory segments every match starts with
}

// compileGlob classifies an expanded, validated doublestar pattern.
func compileGlob(written, pat string) *pathPat {
	g := &pathPat{written: written, pat: pat}
	var lit, tail strings.Builder
	inLit, escaped := true, false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
			continue
		case glob.IsDoublestarMeta(c):
			inLit = false
			tail.Reset()
			continue
		}
		if inLit {
			lit.WriteByte(c)
		}
		tail.WriteByte(c)
	}
	g.lit, g.suffix = lit.String(), tail.String()
	switch {
	case inLit:
		g.kind = globExact
	case strings.HasSuffix(pat, "/**") && !glob.HasDoublestarMeta(pat[:len(pat)-3]):
		g.kind = globTree
		g.lit = unescape(pat[:len(pat)-3])
		g.suffix = ""
	default:
		g.kind = globGeneral
	}
	dir := g.lit
	if g.kind == globGeneral {
		dir = dir[:strings.LastIndexByte(dir, '/')+1]
	}
	for _, seg := range strings.Split(dir, "/") {
		if seg != "" {
			g.dirs = append(g.dirs, seg)
		}
	}
	return g
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// matchPath reports whether a concrete, cleaned path matches.
func (g *pathPat) matchPath(p string) bool {
	switch g.kind {
	case globExact:
		return p == g.lit
	case globTree:
		if g.lit == "" {
			return strings.HasPrefix(p, "/")
		}
		return strings.HasPrefix(p, g.lit) && (len(p) == len(g.lit) || p[len(g.lit)] == '/')
	case globGeneral:
	}
	if !strings.HasPrefix(p, g.lit) || !strings.HasSuffix(p, g.suffix) {
		return false
	}
	ok, err := doublestar.Match(g.pat, p)
	return ok || err != nil // a pattern error cannot happen after validation; fail towards matching
}

// shellLiteral splits a shell glob into its literal prefix (up to the
// first metacharacter, escape or extglob operator) and literal suffix
// (after the last one).
func shellLiteral(p string) (prefix, suffix string) {
	return glob.LiteralPrefix(p), glob.LiteralSuffix(p)
}

// mayOverlap reports whether a shell glob could name a path this pattern
// matches. It over-approximates. The pattern's literal directories must
// each be matched by the glob's segment at the same depth (a shell glob
// does not cross "/"), and one literal suffix must extend the other. A
// glob holding "**" falls back to comparing literal prefixes.
//
// gp and gs are the glob's literal ends (shellLiteral), computed by the
// caller once for every pattern it tries.
func (g *pathPat) mayOverlap(shellGlob, gp, gs string) bool {
	// Literal ends that disagree rule a pattern out before any matching.
	if !strings.HasPrefix(gp, g.lit) && !strings.HasPrefix(g.lit, gp) {
		return false
	}
	if !strings.HasSuffix(gs, g.suffix) && !strings.HasSuffix(g.suffix, gs) {
		return false
	}
	if g.kind == globExact {
		return shellMatchPath(shellGlob, g.lit)
	}
	if strings.Contains(shellGlob, "**") {
		return true
	}
	// Walk the glob's segments against the pattern's literal directories.
	i := 1
	for _, seg := range g.dirs {
		if i > len(shellGlob) {
			return false // the glob names shallower paths than the pattern
		}
		j := strings.IndexByte(shellGlob[i:], '/')
		if j < 0 {
			j = len(shellGlob) - i
		}
		if !shellSegMatch(shellGlob[i:i+j], seg) {
			return false
		}
		i += j + 1
	}
	// A general pattern matches at least one segment past its literal
	// directories; a tree pattern also matches the directory itself.
	return g.kind == globTree || i <= len(shellGlob)
}

// shellSegMatch reports whether a bash glob segment may match the name
// (a leading dot included: an over-approximation). A segment the engine
// cannot read (extglob, malformed) may match anything.
func shellSegMatch(seg, name string) bool {
	q, ext, ok := glob.ToGo(seg)
	return !ok || ext || glob.MatchSeg(q, name, true)
}

// shellMatchPath is shellSegMatch for every segment of a concrete path:
// a shell glob's wildcards do not cross "/", so the segments pair up.
func shellMatchPath(shellGlob, p string) bool {
	for shellGlob != "" || p != "" {
		gs, gr, gok := strings.Cut(shellGlob, "/")
		ps, pr, pok := strings.Cut(p, "/")
		if gok != pok || !shellSegMatch(gs, ps) {
			return false
		}
		shellGlob, p = gr, pr
	}
	return true
}

// mustContain reports whether every path a shell glob could name matches
// this pattern. It under-approximates: only "D/**" patterns can contain a
// glob, when the glob's literal prefix lies inside D.
// gp is the glob's literal prefix.
func (g *pathPat) mustContain(gp string) bool {
	if g.kind != globTree {
		return false
	}
	if g.lit == "" {
		return strings.HasPrefix(gp, "/")
	}
	return strings.HasPrefix(gp, g.lit+"/")
}

// pathClass says how much is known about a PathRef.
type pathClass uint8

const (
	pathConcrete pathClass = iota // an absolute, cleaned path
	pathGlob                      // a shell glob with a usable literal prefix
	pathUnknown                   // relative, empty, or ".." inside a glob: could be anything
)

func classify(pr *PathRef) (string, pathClass) {
	p := pr.Path
	if p == "" || p[0] != '/' {
		return p, pathUnknown
	}
	if pr.Glob {
		if strings.Contains(p, "/..") {
			return p, pathUnknown
		}
		return p, pathGlob
	}
	return path.Clean(p), pathConcrete // Clean does not allocate for a clean path
}

// pathArg is a PathRef prepared for matching against many patterns: its
// class, and for a glob its literal ends.
type pathArg struct {
	p      string
	c      pathClass
	gp, gs string
}

func prepare(pr *PathRef) pathArg {
	p, c := classify(pr)
	a := pathArg{p: p, c: c}
	if c == pathGlob {
		a.gp, a.gs = shellLiteral(p)
	}
	return a
}

// test matches a PathRef: may (over-approximate) or must (under-approximate).
func (g *pathPat) test(a *pathArg, must bool) bool {
	switch a.c {
	case pathConcrete:
		return g.matchPath(a.p)
	case pathGlob:
		if must {
			return g.mustContain(a.gp)
		}
		return g.mayOverlap(a.p, a.gp, a.gs)
	case pathUnknown:
	}
	return !must
}
