package guard

import (
	"errors"
	"github.com/parallax/parallax/internal/glob"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// maxExpand bounds how many directory entries CheckGlob visits while
// expanding a pattern against the filesystem. Beyond it the pattern is
// blocked: the guard cannot vouch for what it did not see.
const maxExpand = 4096

// anySeg stands for a segment that may match any name, dot names
// included (extglob forms the guard does not model). NUL cannot occur in
// a checked path.
const anySeg = "\x00"

// globEntry is a protected path split into segments for pattern matching.
type globEntry struct {
	e    *entry
	segs []string // folded
}

// CheckGlob checks a shell glob pattern (* ? [...] and **) as every path
// it could match, with bash rules: a wildcard does not match a leading
// dot unless the pattern segment starts with one. A pattern without
// wildcards is checked like Check. Braces must be expanded by the caller.
// A recursive pattern with a literal root ("ROOT/**", "ROOT/**/NAME") is
// judged as an operation over a tree: see checkTree.
func (g *Guard) CheckGlob(pattern string, acc action.Access) (Finding, bool) {
	return g.current().checkGlob(pattern, acc, false)
}

// CheckGlobDot is CheckGlob with wildcards that also match names starting
// with a dot: bash with dotglob (or GLOBIGNORE) set, and glob libraries
// that do not special-case dot files.
func (g *Guard) CheckGlobDot(pattern string, acc action.Access) (Finding, bool) {
	return g.current().checkGlob(pattern, acc, true)
}

// current is g with a current view of the filesystem: a guard reading
// through the shared cache gets a memo, which first drops what changed.
func (g *Guard) current() *Guard {
	if _, shared := g.fs.(*fsCache); shared {
		return g.Memo()
	}
	return g
}

func (g *Guard) checkGlob(pattern string, acc action.Access, dot bool) (Finding, bool) {
	acc = normAccess(acc)
	raw, clean, bad := g.prepare(pattern, acc)
	if bad.Rule != "" {
		return bad, true
	}
	if !glob.HasMeta(raw) {
		return g.check(raw, acc)
	}
	if f, ok, handled := g.checkTree(clean, acc, dot); handled {
		return f, ok
	}
	segs, err := bashSegs(splitSegs(fold(clean)))
	if err != "" {
		return g.badPath(pattern, acc, err), true
	}
	w := g.staticOf(clean, segs, acc, dot)
	// A literal leading directory may be a link: judge the pattern from
	// where it really points as well.
	n := 0
	for n < len(segs) && !glob.HasMeta(segs[n]) && segs[n] != anySeg {
		n++
	}
	if n > 0 {
		dir := leadingSegs(clean, n)
		res, rerr := g.resolve(dir)
		switch {
		case rerr != nil:
			w.add(g.badPath(dir, acc, "it cannot be resolved ("+rerr.Error()+")"), true)
		case res != dir:
			rsegs := append(splitSegs(fold(res)), segs[n:]...)
			g.globStatic(&w, clean, rsegs, acc, dot, 0)
		}
	}
	// Expansion finds links planted where an agent can write: the
	// workspace and the scratch directories. System directories (/usr/bin/*)
	// are judged by the tables alone; walking them costs milliseconds.
	if dr, ok := g.fs.(dirReader); ok && (!w.ok || w.f.Decision == verdict.Allow) && g.expandable(clean) {
		rawSegs, _ := bashSegs(strings.Split(strings.Trim(fold(raw), "/"), "/"))
		g.expand(&w, dr, rawSegs, acc, dot)
	}
	return w.f, w.ok
}

// staticOf is globStatic over the segments of clean itself, remembered
// across decisions: the tables are all it reads.
func (g *Guard) staticOf(clean string, segs []string, acc action.Access, dot bool) worst {
	compute := func() worst {
		var w worst
		g.globStatic(&w, clean, segs, acc, dot, 0)
		return w
	}
	if g.statics == nil {
		return compute()
	}
	// The key is the glob, a NUL and one byte of flags: two keys are
	// equal only if their globs and flags are.
	var kb [256]byte
	flags := byte(acc) << 1
	if dot {
		flags |= 1
	}
	key := append(append(kb[:0], clean...), 0, flags)
	return g.statics.DoBytes(key, compute)
}

// globStatic matches the pattern segments against every table entry,
// the component rules, the name rules and /proc.
func (g *Guard) globStatic(w *worst, shown string, segs []string, acc action.Access, dot bool, depth int) {
	uf := unfoldSegs(segs)
	ends := make([]segEnd, len(segs))
	for i, q := range segs {
		ends[i] = segEndOf(q)
	}
	for _, ge := range g.candidates(segs) {
		rel := reach(segs, ge.segs, dot, uf, ends)
		if rel&(relEqual|relUnder) != 0 {
			lvl := ge.e.level
			if ge.e.pub && rel&relEqual == 0 && onlyPub(segs) {
				lvl = Protected
			}
			w.add(g.findingFor(shown, ge.e.path, shown, acc, lvl, ge.e.what))
		}
		if rel&relAncestor != 0 && acc&action.AccessDelete != 0 {
			w.add(g.findingFor(shown, ge.e.path, shown, action.AccessDelete, ge.e.level, "directories holding "+ge.e.what))
		}
	}
	// Component rules match with bash's dot rule even under dotglob:
	// otherwise every wildcard could be a ".ssh" somewhere. Expansion
	// still checks the components that exist.
	for _, r := range componentRules {
		for j := range segs {
			var ufj []string
			if uf != nil {
				ufj = uf[j:]
			}
			rel := reach(segs[j:], r.seq, false, ufj, ends[j:])
			if rel&(relEqual|relUnder) == 0 {
				continue
			}
			lvl := r.level
			if r.pub && rel&relEqual == 0 && onlyPub(segs) {
				lvl = Protected
			}
			w.add(g.findingFor(shown, ".../"+strings.Join(r.seq, "/"), shown, acc, lvl, r.what))
			break
		}
	}
	if len(segs) > 0 {
		last := segs[len(segs)-1]
		if lvl, what, name := globNameLevel(last, dot); lvl != None {
			w.add(g.findingFor(shown, name, shown, acc, lvl, what))
		}
		// A pattern naming a host memory file by its literal name; a
		// wildcard reaching one is found by the expansion.
		if hostDocName(last) {
			w.add(g.findingFor(shown, last, shown, acc, Tier2, catHostDocs))
		}
	}
	if depth < 4 {
		g.globProc(w, shown, segs, acc, dot, depth)
	}
}

// candidates are the table entries a pattern can reach. Every entry's
// segments are literal, so an entry meets a pattern whose first k
// segments are literal only if it is one of their ancestors, their
// directory itself, or below it: the rest are skipped without a look.
// Order is the table's, so ties resolve alike.
func (g *Guard) candidates(segs []string) []globEntry {
	k := 0
	for k < len(segs) && !glob.HasMeta(segs[k]) && segs[k] != anySeg && segs[k] != "**" &&
		!strings.ContainsRune(segs[k], '\\') {
		k++
	}
	if k == 0 {
		return g.globs
	}
	var out []globEntry
	for i := 1; i <= k; i++ { // ancestors and the directory itself
		if at, ok := g.globAt[strings.Join(segs[:i], "/")]; ok {
			out = append(out, g.globs[at])
		}
	}
	prefix := strings.Join(segs[:k], "/")
	lo := sort.SearchStrings(g.globKeys, prefix+"/")
	hi := sort.SearchStrings(g.globKeys, prefix+"0") // '0' follows '/'
	return append(out, g.globs[lo:hi]...)
}

// globProc handles /proc/<pid>/… patterns: root aliases "/", and the
// opaque or secret entries are restricted.
func (g *Guard) globProc(w *worst, shown string, segs []string, acc action.Access, dot bool, depth int) {
	if len(segs) < 2 || !segMatch(segs[0], "proc", dot) {
		return
	}
	if segMatch(segs[1], "kcore", dot) || segMatch(segs[1], "kmem", dot) {
		w.add(g.findingFor(shown, "/proc/kcore", shown, acc, Restricted, catProcMem))
	}
	if !couldBePID(segs[1], dot) {
		return
	}
	for _, k := range []int{2, 4} {
		if len(segs) <= k || k == 4 && !segMatch(segs[2], "task", dot) {
			continue
		}
		c := segs[k]
		if segMatch(c, "root", dot) {
			g.globStatic(w, shown, segs[k+1:], acc, dot, depth+1)
		}
		for _, name := range []string{"cwd", "map_files", "environ", "mem", "pagemap"} {
			if segMatch(c, name, dot) {
				w.add(g.findingFor(shown, "/proc/<pid>/"+name, shown, acc, Restricted, catProcMem))
			}
		}
		if segMatch(c, "fd", dot) && len(segs) > k+1 && !(len(segs) == k+2 && isStdFD(segs[k+1])) {
			w.add(g.findingFor(shown, "/proc/<pid>/fd", shown, acc, Restricted, catProcMem))
		}
	}
}

func isStdFD(s string) bool { return s == "0" || s == "1" || s == "2" }

// globNameLevel applies the name rules to the last pattern segment. A
// segment of bare stars stands for the directory's listing and is left
// to expansion (a listing is not a read of each file).
func globNameLevel(q string, dot bool) (Level, string, string) {
	if q == "" || strings.Trim(q, "*") == "" {
		return None, "", ""
	}
	if !glob.HasMeta(q) && q != anySeg {
		lvl, what := nameLevel(q)
		return lvl, what, q
	}
	if q == anySeg {
		return Restricted, catCreds, "a secret file name"
	}
	lq := strings.ToLower(q)
	end := segEndOf(lq)
	for _, name := range secretNameList {
		if !end.excludes(name) && segMatch(lq, name, dot) {
			return Restricted, secretNames[name], name
		}
	}
	toks, ok := tokenize(lq)
	if !ok {
		return Restricted, catCreds, "a secret file name"
	}
	for _, s := range secretSuffixes {
		if couldFix(toks, s.suffix, true) {
			return Restricted, s.what, "*" + s.suffix
		}
	}
	if couldFix(toks, ".env.", false) && (dot || strings.HasPrefix(lq, ".")) {
		return Restricted, catEnv, ".env.*"
	}
	return None, "", ""
}

// onlyPub reports whether the last segment can only match *.pub names.
func onlyPub(segs []string) bool {
	last := segs[len(segs)-1]
	return strings.HasSuffix(last, ".pub") && !strings.HasSuffix(last, "\\.pub") &&
		!strings.Contains(last[max(0, len(last)-5):], "]") && last != anySeg
}

// relations a path matching a pattern can have to a protected path.
const (
	relEqual    = 1 << iota // the path is the protected path
	relUnder                // the path is below it
	relAncestor             // the path is above it (deleting it removes it)
)

// reach reports how paths matching pat (segments, "**" for any number
// of directories) can relate to the concrete path ent.
func reach(pat, ent []string, dot bool, uf []string, ends []segEnd) int {
	r := reacher{pat: pat, ent: ent, dot: dot, uf: uf, ends: ends}
	return r.at(0, 0)
}

type reacher struct {
	pat, ent []string
	uf       []string // uf[i]: pat[i] unfolded when it is all case pairs, else "" (nil: none)
	ends     []segEnd // ends[i]: how pat[i]'s matches end (nil: unknown)
	dot      bool
	memo     []int8 // rel+1, only when the pattern has "**"
}

func (r *reacher) at(i, j int) int {
	if r.memo == nil {
		return r.calc(i, j)
	}
	k := i*(len(r.ent)+1) + j
	if v := r.memo[k]; v != 0 {
		return int(v - 1)
	}
	v := r.calc(i, j)
	r.memo[k] = int8(v + 1)
	return v
}

func (r *reacher) calc(i, j int) int {
	switch {
	case i == len(r.pat) && j == len(r.ent):
		return relEqual
	case i == len(r.pat):
		return relAncestor
	case j == len(r.ent):
		rel := relUnder
		if allDoubleStar(r.pat[i:]) {
			rel |= relEqual
		}
		return rel
	case r.pat[i] == "**":
		if r.memo == nil {
			// Memoised from the first "**" on: the literal segments
			// before it fail most entries without allocating.
			r.memo = make([]int8, (len(r.pat)+1)*(len(r.ent)+1))
		}
		rel := r.at(i+1, j)
		if r.dot || !strings.HasPrefix(r.ent[j], ".") {
			rel |= r.at(i, j+1)
		}
		return rel
	case r.segMatch(i, j):
		return r.at(i+1, j+1)
	}
	return 0
}

func allDoubleStar(segs []string) bool {
	for _, s := range segs {
		if s != "**" {
			return false
		}
	}
	return true
}

// segMatch reports whether pattern segment q (path.Match syntax, after
// bashSegs) matches the name, with the bash leading-dot rule unless dot
// is set; anySeg matches every name.
func segMatch(q, name string, dot bool) bool {
	return q == anySeg || glob.MatchSeg(q, name, dot)
}

// segMatch matches pattern segment i against entry segment j, through
// the unfolded form when there is one.
func (r *reacher) segMatch(i, j int) bool {
	if i < len(r.ends) && r.ends[i].excludes(r.ent[j]) {
		return false
	}
	if i < len(r.uf) && r.uf[i] != "" {
		q, name := r.uf[i], r.ent[j]
		if !r.dot && strings.HasPrefix(name, ".") && !strings.HasPrefix(q, ".") {
			return false
		}
		if ok, done := glob.ShapeMatch(q, name, true); done {
			return ok
		}
	}
	return segMatch(r.pat[i], r.ent[j], r.dot)
}

// unfoldSegs returns the unfolded form of each case-pair segment ("" for
// the others), or nil when there is none.
func unfoldSegs(segs []string) []string {
	var uf []string
	for i, q := range segs {
		if !strings.Contains(q, "[") {
			continue
		}
		if u, ok := glob.Unfold(q); ok {
			if uf == nil {
				uf = make([]string, len(segs))
			}
			uf[i] = u
		}
	}
	return uf
}

// couldBePID reports whether q can match a process id, "self" or
// "thread-self".
func couldBePID(q string, dot bool) bool {
	if segMatch(q, "self", dot) || segMatch(q, "thread-self", dot) {
		return true
	}
	toks, ok := tokenize(q)
	if !ok {
		return true
	}
	for _, t := range toks {
		if t.kind == tokLit && (t.c < '0' || t.c > '9') {
			return false
		}
		if t.kind == tokClass && !classAny(t.class, "0123456789") {
			return false
		}
	}
	return len(toks) > 0
}

// expand walks the filesystem the way the shell would expand the
// pattern and checks every match with Check, so links and secret files
// hidden behind wildcards are judged by what exists now.
func (g *Guard) expand(w *worst, dr dirReader, segs []string, acc action.Access, dot bool) {
	cur := []found{{}}
	x := expansion{budget: maxExpand}
	for i, seg := range segs {
		last := i == len(segs)-1
		var next []found
		for _, d := range cur {
			dir := d.path
			switch {
			case seg == "**":
				next = g.walk(dr, dir, dot, last, next, &x)
			case seg == anySeg || glob.HasMeta(seg):
				next = g.matchDir(dr, dir, seg, dot, next, &x)
			default:
				next = append(next, found{path: dir + "/" + seg})
			}
			if x.budget < 0 {
				w.add(g.badPath(strings.Join(segs, "/"), acc, "the pattern matches too many paths to check"), true)
				return
			}
		}
		if x.unlisted != "" {
			// What the directory holds is unknown: it may hold a link
			// planted to point anywhere. The matches found elsewhere are
			// still checked below.
			w.add(g.unlistedFinding(strings.Join(segs, "/"), acc, x.unlisted, x.err), true)
		}
		cur = next
		if len(cur) == 0 {
			return
		}
	}
	var plain plainDirs
	for _, d := range cur {
		p := d.path
		if p == "" {
			p = "/"
		}
		if plainEntries && d.listed {
			if f, ok, done := g.plainEntry(&plain, p, d.typ, acc); done {
				w.add(f, ok)
				continue
			}
		}
		w.add(g.check(p, acc))
	}
}

// found is a path expansion reached; a listed one carries its type.
type found struct {
	path   string
	typ    fs.FileMode
	listed bool
}

// plainEntries switches the plainEntry shortcut (tests compare both).
var plainEntries = true

// plainDirs remembers, for one expansion, which directories are plain.
type plainDirs []struct {
	dir   string
	plain bool
}

// plainEntry checks a listed entry cheaply when check would only apply
// the name rules to it: the entry is not a link, not a table entry nor a
// directory holding one, its name is ordinary (no leading dot, no control
// character), and its directory is plain — resolved as written, not under
// /proc, no dot component, and under no table entry that applies to acc.
// Then nothing above or below the entry can apply but its name. done is
// false when the shortcut does not apply; check decides.
func (g *Guard) plainEntry(pd *plainDirs, p string, typ fs.FileMode, acc action.Access) (f Finding, ok, done bool) {
	if foldCase || len(p) > maxPathLen || typ&fs.ModeSymlink != 0 {
		return Finding{}, false, false
	}
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return Finding{}, false, false
	}
	dir, name := p[:i], p[i+1:]
	if name == "" || name[0] == '.' || action.CheckPathChars(name) != nil || hostDocName(name) {
		return Finding{}, false, false
	}
	if g.prefixes[p] != nil || g.ancestors[p] != nil {
		return Finding{}, false, false // a table entry, or a directory holding one
	}
	if !g.plainDir(pd, dir, acc) {
		return Finding{}, false, false
	}
	if lvl, what := nameLevel(name); lvl != None {
		f, ok = g.finding(p, p, acc, lvl, what)
		return f, ok, true
	}
	return Finding{}, false, true
}

func (g *Guard) plainDir(pd *plainDirs, dir string, acc action.Access) bool {
	for _, d := range *pd {
		if d.dir == dir {
			return d.plain
		}
	}
	plain := !strings.HasPrefix(dir, "/proc") && !strings.Contains(dir+"/", "/.") &&
		path.Clean(dir) == dir && action.CheckPathChars(dir) == nil
	if plain {
		res, err := g.resolve(dir)
		plain = err == nil && res == dir
	}
	if plain {
		// What applies to the directory's entries from above: the table
		// entries at or above it (an entry's own name, dot components and
		// the entries below it are the entry's, judged in plainEntry).
		var w worst
		g.classifyPrefix(&w, dir, dir, dir, dir[strings.LastIndexByte(dir, '/')+1:], acc)
		plain = !w.ok
	}
	*pd = append(*pd, struct {
		dir   string
		plain bool
	}{dir, plain})
	return plain
}

// expansion is the state of one expansion: the entries it may still
// list, and the first directory it could not list (with the error).
type expansion struct {
	budget   int
	unlisted string
	err      error
}

// listed reads dir for an expansion. A directory nobody can list
// (nothingListed) holds nothing: the shell leaves an unmatched pattern as
// it is. Any other error is remembered: what the directory holds is
// unknown.
func (x *expansion) listed(dr dirReader, dir string) []fs.DirEntry {
	ents, err := dr.ReadDir(dirOrRoot(dir))
	if err != nil {
		if !nothingListed(err) && x.unlisted == "" {
			x.unlisted, x.err = dirOrRoot(dir), err
		}
		return nil
	}
	x.budget -= len(ents)
	return ents
}

// nothingListed reports whether a listing error means that no process
// lists anything there either: no such directory, not a directory, a
// link loop.
func nothingListed(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// unlistedFinding is the finding of a pattern whose expansion met a
// directory it could not list: it needs review.
func (g *Guard) unlistedFinding(pattern string, acc action.Access, dir string, err error) Finding {
	return Finding{Rule: RuleBadPath, Level: Restricted, Path: quote(pattern), Decision: verdict.Escalate,
		Reason: accessVerb(acc) + " " + quote(g.show(pattern)) + " needs review: " + quote(g.show(dir)) +
			" cannot be listed (" + err.Error() + "), so what the pattern reaches there (a planted link?) is unknown"}
}

// matchDir appends the entries of dir matching seg.
func (g *Guard) matchDir(dr dirReader, dir, seg string, dot bool, out []found, x *expansion) []found {
	ents := x.listed(dr, dir)
	for _, e := range ents {
		if segMatch(seg, fold(e.Name()), dot) {
			out = append(out, found{dir + "/" + e.Name(), e.Type(), true})
		}
	}
	return out
}

// walk appends dir and everything below it for "**" (directories only
// unless it is the last segment), without following links, as bash's
// globstar does.
func (g *Guard) walk(dr dirReader, dir string, dot, files bool, out []found, x *expansion) []found {
	out = append(out, found{path: dir})
	ents := x.listed(dr, dir)
	for _, e := range ents {
		if x.budget < 0 {
			return out
		}
		if !dot && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := dir + "/" + e.Name()
		switch {
		case e.IsDir() && e.Type()&fs.ModeSymlink == 0:
			out = g.walk(dr, p, dot, files, out, x)
		case files:
			out = append(out, found{p, e.Type(), true})
		}
	}
	return out
}

func dirOrRoot(dir string) string {
	if dir == "" {
		return "/"
	}
	return dir
}

// expandable reports whether a pattern's literal prefix lies where links
// may be planted: the workspace, the home, or a scratch directory.
func (g *Guard) expandable(pattern string) bool {
	lit := pattern
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c == '*' || c == '?' || c == '[' {
			lit = pattern[:strings.LastIndexByte(pattern[:i], '/')+1]
			break
		}
	}
	lit = strings.TrimSuffix(lit, "/")
	if lit == "" {
		return false
	}
	for _, root := range [...]string{g.workspace, g.home, "/tmp", "/var/tmp", "/dev/shm"} {
		if within(lit, root) || within(root, lit) && lit != "/" {
			return true
		}
	}
	return false
}
