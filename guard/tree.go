package guard

import (
	"errors"
	"github.com/parallax/parallax/internal/glob"
	"io/fs"
	"sort"
	"strings"
	"syscall"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// checkTree judges a recursive pattern: "ROOT/**" (every file below ROOT,
// as find -exec {}, grep -r or xargs fed by find select them) or
// "ROOT/**/REST" (those whose trailing part matches REST).
//
// A recursive operation is not a targeted access of each file below its
// root, so it is judged by what lies below:
//   - the root itself, and what REST names, go through Check/CheckGlob;
//   - a recursive read over a tree that holds restricted or sealed
//     entries outside the workspace (find ~, grep -r / …) ESCALATEs;
//     the workspace's own .parallax does not count here: it is hidden by
//     the own agent's executor (WithInternalsHidden), and otherwise
//     CheckInternals judges what the operation reaches in it;
//   - a recursive write or delete over a tree that holds any protected
//     entry (.parallax, SOUL.md, rc files, keys) ESCALATEs;
//   - the tree is not expanded against the disk: links and secret file
//     names inside a bare "ROOT/**" are left to the executor's sandbox
//     and to DLP on the output (documented limit).
func (g *Guard) checkTree(pattern string, acc action.Access, dot bool) (Finding, bool, bool) {
	i := strings.Index(pattern, "/**")
	if i < 0 || (i+3 < len(pattern) && pattern[i+3] != '/') {
		return Finding{}, false, false
	}
	root, rest := pattern[:i], strings.TrimPrefix(pattern[i+3:], "/")
	if root == "" {
		root = "/"
	}
	if glob.HasMeta(root) {
		return Finding{}, false, false // wildcards above the tree: the general matcher
	}
	var w worst
	rootAcc := acc
	if acc&action.AccessDelete != 0 {
		// The root is not removed by a recursive operation on its files,
		// but everything in it may change.
		rootAcc = acc&^action.AccessDelete | action.AccessWrite
	}
	w.add(g.check(root, rootAcc))
	if w.ok && w.f.Decision == verdict.Block {
		return w.f, true, true
	}
	if rest == "" || strings.Trim(rest, "*/") == "" {
		w.add(g.treeBelow(root, acc))
		return w.f, w.ok, true
	}
	w.add(g.checkGlob(root+"/"+rest, acc, dot))
	if w.ok && w.f.Decision == verdict.Block {
		return w.f, true, true
	}
	w.add(g.treeNamed(root, rest, acc))
	return w.f, w.ok, true
}

// treeNamed handles "ROOT/**/REST": an entry below ROOT is reached when
// its own name matches REST's last segment, or when it is a restricted
// or sealed area whose files could match. The workspace's .parallax is
// left to CheckInternals for name-narrowed selections (find . -name '*.o'
// -delete): hidden by the own agent's executor, judged entry by entry
// by what exists there otherwise.
func (g *Guard) treeNamed(root, rest string, acc action.Access) (Finding, bool) {
	res, err := g.resolve(root)
	if err != nil {
		return g.badPath(root, acc, "it cannot be resolved ("+err.Error()+")"), true
	}
	last := fold(rest[strings.LastIndexByte(rest, '/')+1:])
	end := segEndOf(last)
	write := acc&(action.AccessWrite|action.AccessDelete) != 0
	// Every finding here is an escalation ranked by its entry's level:
	// the first entry of the highest level is the one reported, and its
	// reason is built once.
	var top *entry
	for _, ge := range g.below(res) {
		p := ge.e.path
		if p == res || !within(p, res) || ge.e.level == None {
			continue
		}
		base := fold(p[strings.LastIndexByte(p, '/')+1:])
		named := !end.excludes(base) && segMatch(last, base, true)
		area := ge.e.level >= Restricted && p != g.workspace+"/.parallax"
		switch {
		case named && (write || ge.e.level >= Restricted):
		case area && (write || !within(p, g.workspace)):
		default:
			continue
		}
		if top == nil || ge.e.level > top.level {
			top = ge.e
		}
	}
	if top == nil {
		return Finding{}, false
	}
	verb := "a recursive read of "
	if write {
		verb = "a recursive change under "
	}
	return g.treeFinding(root, acc, top, verb+g.show(root)+" could reach "+top.what), true
}

// treeBelow reports the entries below root that a recursive operation
// with acc would reach.
func (g *Guard) treeBelow(root string, acc action.Access) (Finding, bool) {
	res, err := g.resolve(root)
	if err != nil {
		return g.badPath(root, acc, "it cannot be resolved ("+err.Error()+")"), true
	}
	e := g.ancestors[fold(res)]
	if e == nil {
		return Finding{}, false
	}
	if acc&(action.AccessWrite|action.AccessDelete) == 0 {
		if within(res, g.workspace) || e.level < Restricted {
			return Finding{}, false
		}
		return g.treeFinding(root, acc, e, "a recursive read of "+g.show(root)+" would include "+e.what), true
	}
	// A recursive change touches the protected entries that exist below
	// the root. A broad tree (/, ~) holds too many to look up: it needs
	// review whatever exists.
	var buf [maxTreeLookups + 1]*entry
	below := buf[:0]
	for _, ge := range g.below(res) {
		if p := ge.e.path; p != res && within(p, res) && ge.e.level != None && !g.executorGuards(p) {
			if below = append(below, ge.e); len(below) > maxTreeLookups {
				break // too many: the count is all that is asked below
			}
		}
	}
	if len(below) > maxTreeLookups {
		return g.treeFinding(root, acc, e, "a recursive change under "+g.show(root)+" would include "+e.what), true
	}
	var top *entry // as in treeNamed: the first of the highest level
	for _, be := range below {
		if top != nil && be.level <= top.level {
			continue
		}
		// An entry that cannot be inspected may exist: only "does not
		// exist" (or "a component is not a directory") rules it out.
		if _, err := g.fs.Lstat(be.path); !absent(err) {
			top = be
		}
	}
	if top == nil {
		return Finding{}, false
	}
	return g.treeFinding(root, acc, top, "a recursive change under "+g.show(root)+" would include "+top.what), true
}

// maxTreeLookups bounds the existence checks of one recursive change. The
// workspace root holds 24 entries of the tables (its levels and the
// agent host's files): a change below it looks each up; the home and
// the root hold more and need review whatever exists.
const maxTreeLookups = 32

func (g *Guard) treeFinding(root string, acc action.Access, e *entry, why string) Finding {
	return Finding{Rule: RuleTree, Level: e.level, Path: g.show(root), Decision: verdict.Escalate,
		Reason: why + " (" + g.show(e.path) + "); it needs review"}
}

// below returns the table entries that may lie strictly below dir (a
// superset: callers still test each), in table order. The table is
// sorted by path, so they are one run of it.
func (g *Guard) below(dir string) []globEntry {
	if foldCase || dir == "/" {
		return g.globs
	}
	key := strings.TrimPrefix(dir, "/")
	lo := sort.SearchStrings(g.globKeys, key+"/")
	hi := sort.SearchStrings(g.globKeys, key+"0") // '0' follows '/'
	return g.globs[lo:hi]
}

// absent reports whether a Lstat error says that nothing is at the path.
// Any other error leaves it unknown, which the callers count as present.
func absent(err error) bool {
	return err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR))
}

// CheckTreeWrite judges a change of any path below the root of a tree
// pattern "ROOT/**", whether that path exists now or not: a program that
// writes content the caller cannot see (git checking out a commit or the
// index, applying a stash or a patch, merging) may create, replace or
// remove any file below ROOT. The root itself goes through Check (as a
// write when acc deletes: what is removed lies below it); every entry of
// the tables below it, existing or not, makes the change need review
// (RuleTree, ESCALATE), the strictest entry named. Component rules (a
// nested project's .claude/settings.json) are not looked for below the
// root. A pattern of another shape is judged as CheckGlobDot judges it.
func (g *Guard) CheckTreeWrite(pattern string, acc action.Access) (Finding, bool) {
	return g.current().checkTreeWrite(pattern, acc)
}

func (g *Guard) checkTreeWrite(pattern string, acc action.Access) (Finding, bool) {
	acc = normAccess(acc)
	_, clean, bad := g.prepare(pattern, acc)
	if bad.Rule != "" {
		return bad, true
	}
	root, ok := strings.CutSuffix(clean, "/**")
	if !ok || glob.HasMeta(root) || strings.Contains(root, "**") {
		return g.checkGlob(pattern, acc, true)
	}
	if root == "" {
		root = "/"
	}
	rootAcc := acc
	if acc&action.AccessDelete != 0 {
		// What is removed is below the root; the root itself may change.
		rootAcc = acc&^action.AccessDelete | action.AccessWrite
	}
	var w worst
	w.add(g.check(root, rootAcc))
	if w.ok && w.f.Decision == verdict.Block {
		return w.f, true
	}
	res, err := g.resolve(root)
	if err != nil {
		return g.badPath(root, acc, "it cannot be resolved ("+err.Error()+")"), true
	}
	var top *entry // the first entry of the highest level, as in treeNamed
	for _, ge := range g.below(res) {
		if p := ge.e.path; p != res && within(p, res) && ge.e.level != None && !g.executorGuards(p) &&
			(top == nil || ge.e.level > top.level) {
			top = ge.e
		}
	}
	if top != nil {
		w.add(g.treeFinding(root, acc, top, "a change of any path under "+g.show(root)+" could reach "+top.what), true)
	}
	return w.f, w.ok
}

// executorGuards reports whether the executor of what this guard allows
// keeps a change from reaching p whatever the command does: with
// WithInternalsHidden (the own agent's per-command sandbox) the
// workspace's and the home's .parallax are hidden and the workspace's
// host-trusted files (.claude/, .mcp.json, .git/hooks, …) are read-only,
// so a recursive change under the workspace (git checkout, git stash)
// cannot touch them. Agent instruction and identity files are not so
// kept: they still count.
func (g *Guard) executorGuards(p string) bool {
	if !g.hidden {
		return false
	}
	if p == g.workspace+"/.parallax" || g.home != "" && p == g.home+"/.parallax" {
		return true
	}
	for _, t := range HostTrusted() {
		if within(p, g.workspace+"/"+t) {
			return true
		}
	}
	return false
}
