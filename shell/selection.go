package shell

import (
	"path"
	"regexp"
	"strings"
)

// Selection is what a recursive set (PathUse.Recursive) selects below its
// root beyond its pattern, and what its consumer shows of the files it
// reads. It is the analyser's reading of find's expression (tests,
// -not/!, -o, parentheses, -prune, -maxdepth/-mindepth, the action the
// set feeds), of grep's --include/--exclude/--exclude-dir and of rg's
// -g globs and hidden-file rule. Anything it does not model counts as
// "may select" (three-valued: a test it cannot evaluate is unknown, and
// unknown is selected), so a Selection is a sound superset of what the
// command reaches. A nil *Selection selects everything.
//
// It implements guard.Selector (the gate judges what a recursive
// operation reaches in the workspace's .parallax with it). Paths it is
// asked about are slash-separated and relative to the set's root.
type Selection struct {
	// find: the expression, the root as find prints it ("" when there
	// are several), the index of the action whose files the set is (-1:
	// what find prints).
	expr     *findNode
	root     string
	target   int
	maxDepth int // -1: none
	minDepth int
	depth    bool // -depth or -delete: -prune does nothing

	// grep, rg.
	grep                         bool
	include, exclude, excludeDir []string
	globs                        []string // rg -g, "!" for exclusions
	noHidden                     bool     // rg without --hidden: dot names are skipped

	// fd: files and directories whose name matches (exclude: -E).
	fd     bool
	nameRe *regexp.Regexp // nil: any name
	exts   []string       // -e: one of these extensions (lower case)

	search *searchTest // what the consumer shows of a file; nil: all of it (unknown)
}

// Descend reports whether the walk enters the directory at rel.
func (s *Selection) Descend(rel string) bool {
	if s == nil || rel == "" {
		return true
	}
	base := path.Base(rel)
	switch {
	case s.noHidden && strings.HasPrefix(base, "."):
		return false
	case s.fd:
		return !anyGlob(s.exclude, base)
	case s.grep:
		return !anyGlob(s.excludeDir, base) && !rgExcludes(s.globs, base)
	case s.expr == nil:
		return true
	}
	d := depthOf(rel)
	if s.maxDepth >= 0 && d >= s.maxDepth {
		return false
	}
	if s.depth || d < s.minDepth {
		return true
	}
	_, hits := s.expr.eval(s, rel, true)
	return hits[hitPrune] != triTrue
}

// Reach reports whether the consumer acts on the entry at rel (a
// directory when dir is set): for grep only files are read.
func (s *Selection) Reach(rel string, dir bool) bool {
	if s == nil {
		return true
	}
	base := path.Base(rel)
	if s.noHidden && strings.HasPrefix(base, ".") {
		return false
	}
	if s.fd {
		return s.fdReach(base)
	}
	if s.grep {
		if dir {
			return false
		}
		if len(s.include) > 0 && !anyGlob(s.include, base) || anyGlob(s.exclude, base) || rgExcludes(s.globs, base) {
			return false
		}
		return rgIncludes(s.globs, base)
	}
	if s.expr == nil {
		return true
	}
	d := depthOf(rel)
	if s.maxDepth >= 0 && d > s.maxDepth || d < s.minDepth {
		return false
	}
	val, hits := s.expr.eval(s, rel, dir)
	if s.target >= 0 || s.expr.hasPrint() {
		return hits[hitTarget] != triFalse
	}
	return val != triFalse // the implicit -print
}

// Reveals reports whether the consumer shows any of data when it reads
// a file holding it: known only for a search whose pattern the analyser
// evaluates.
func (s *Selection) Reveals(data []byte) (show, known bool) {
	if s == nil || s.search == nil {
		return false, false
	}
	return s.search.reveals(data), true
}

func depthOf(rel string) int { return strings.Count(rel, "/") + 1 }

// anyGlob reports whether a name matches one of the patterns (fnmatch,
// wildcards matching a leading dot as grep's do); a pattern the engine
// cannot read matches.
func anyGlob(pats []string, name string) bool {
	for _, p := range pats {
		if globName(p, name) {
			return true
		}
	}
	return false
}

// globName reports whether name may match p: globTri's answer, a
// pattern it cannot read counting as a match.
func globName(p, name string) bool { return globTri(p, name) != triFalse }

// rgExcludes: an rg "!GLOB" without "/" matching the name excludes it.
func rgExcludes(globs []string, name string) bool {
	for _, g := range globs {
		if p, ok := strings.CutPrefix(g, "!"); ok && !strings.Contains(p, "/") && globName(p, name) {
			return true
		}
	}
	return false
}

// rgIncludes: with positive rg globs, a file must match one (a glob with
// "/" is not modelled and matches).
func rgIncludes(globs []string, name string) bool {
	pos := false
	for _, g := range globs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		pos = true
		if strings.Contains(g, "/") || globName(g, name) {
			return true
		}
	}
	return !pos
}

// withSearch returns a copy of s whose consumer shows what t says (nil s:
// a selection of everything with that consumer).
func (s *Selection) withSearch(t *searchTest) *Selection {
	if t == nil && (s == nil || s.search == nil) {
		return s // unchanged: the same selection, one path use
	}
	var c Selection
	if s != nil {
		c = *s
	} else {
		c = Selection{target: -1, maxDepth: -1}
	}
	c.search = t
	return &c
}

// searchTest is what a search shows of a file: the lines its regexp
// matches (or, inverted, those it does not).
type searchTest struct {
	re     *regexp.Regexp
	invert bool
}

func (t *searchTest) reveals(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := indexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if t.re.Match(line) != t.invert {
			return true
		}
	}
	return false
}

func indexByte(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// SearchSelection is the selection of a typed search (search_files: the
// Claude Code Grep and Glob tools): every file, its content shown where
// the pattern, an RE2 regular expression compared without case, matches
// a line. A pattern that is not one (a glob such as "**/*.go") reads no
// content: the search lists names only.
func SearchSelection(pattern string) *Selection {
	s := &Selection{target: -1, maxDepth: -1}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		re = regexp.MustCompile(`[^\s\S]`) // matches nothing
	}
	s.search = &searchTest{re: re}
	return s
}
