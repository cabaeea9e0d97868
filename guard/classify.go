package guard

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// entry is one protected path of the tables. path is "~/…" (home),
// "/…" (absolute) or workspace-relative, depending on the table.
type entry struct {
	path  string
	level Level
	what  string // plural category for reasons: "SSH keys and configuration"
	pub   bool   // reading *.pub files below the entry is allowed (public keys)
}

// componentRule protects a sequence of path components wherever it sits.
type componentRule struct {
	seq   []string
	level Level
	what  string
	pub   bool
}

// worst keeps the most severe finding seen.
type worst struct {
	f  Finding
	ok bool
}

func (w *worst) add(f Finding, ok bool) {
	if ok && (!w.ok || rank(f) > rank(w.f)) {
		w.f, w.ok = f, true
	}
}

// rank orders findings: any Block above any Escalate above any Allow,
// then the stricter level, then the higher minimum tier. An escalation
// never hides a block found on another path.
func rank(f Finding) int {
	r := int(f.Level)<<4 | f.MinTier
	switch f.Decision {
	case verdict.Allow:
	case verdict.Escalate:
		r |= 1 << 12
	default:
		r |= 2 << 12
	}
	return r
}

// compile builds the lookup tables for g.workspace and g.home.
func (g *Guard) compile() {
	g.prefixes = make(map[string]*entry, 256)
	g.ancestors = make(map[string]*entry, 256)
	g.globAt = make(map[string]int, 256)
	for _, e := range systemEntries {
		if e.level == Restricted && within(g.home, e.path) {
			continue // the user's own home (e.g. /root) is listed part by part
		}
		g.add(e.path, e)
		for _, root := range privateRoots {
			if within(e.path, root) {
				g.add("/private"+e.path, e)
			}
		}
	}
	// The home and the workspace may sit behind links themselves (macOS
	// /var → /private/var): entries exist under both spellings.
	homes, wss := g.roots(g.home), g.roots(g.workspace)
	for _, home := range homes {
		for _, list := range [][]entry{homeEntries, homeEntriesOS} {
			for _, e := range list {
				g.add(path.Join(home, strings.TrimPrefix(e.path, "~")), e)
			}
		}
	}
	for _, ws := range wss {
		for _, e := range workspaceEntries {
			g.add(path.Join(ws, e.path), e)
		}
	}
	for _, p := range g.extra {
		for _, r := range g.roots(p) {
			g.add(r, entry{level: Protected, what: catGateCfg})
		}
	}
	// Sorted, so ties between entries always name the same one.
	for _, key := range slices.Sorted(maps.Keys(g.prefixes)) {
		e := g.prefixes[key]
		if e.level == None {
			continue
		}
		segs := splitSegs(key)
		g.globAt[strings.Join(segs, "/")] = len(g.globs)
		g.globKeys = append(g.globKeys, strings.Join(segs, "/"))
		g.globs = append(g.globs, globEntry{e: e, segs: segs})
		for a := key; a != "/"; {
			a = path.Dir(a)
			if old := g.ancestors[a]; old == nil || e.level > old.level {
				g.ancestors[a] = e
			}
		}
		if e.what == catGateCfg {
			g.addCfgDirs(key, e, append(homes[:len(homes):len(homes)], wss...))
		}
	}
}

// addCfgDirs records the directories above a configuration file, up to
// (not including) the nearest of roots (the home and the workspace, with
// their resolved spellings) that holds it, or its parent alone when none
// does.
func (g *Guard) addCfgDirs(key string, e *entry, roots []string) {
	if g.cfgDirs == nil {
		g.cfgDirs = make(map[string]*entry, 16)
	}
	top, found := path.Dir(path.Dir(key)), ""
	for _, r := range roots {
		if f := fold(r); f != key && within(key, f) && len(f) > len(found) {
			found = f
		}
	}
	if found != "" {
		top = found
	}
	for a := path.Dir(key); len(a) > len(top); a = path.Dir(a) {
		g.cfgDirs[a] = e
	}
}

// roots returns p and, when it differs, p with its links resolved.
func (g *Guard) roots(p string) []string {
	if r, err := g.resolve(p); err == nil && r != p {
		return []string{p, r}
	}
	return []string{p}
}

// add stores e under the absolute path abs; the stricter entry wins a clash.
func (g *Guard) add(abs string, e entry) {
	e.path = abs
	key := fold(abs)
	if old := g.prefixes[key]; old != nil && old.level >= e.level {
		return
	}
	g.prefixes[key] = &e
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root) && p[len(root)] == '/'
}

// classify adds to w what applies to p (clean, absolute). orig is the path
// as asked, for reasons when p is its resolution. whole applies the rule
// against writing an agent configuration directory as a whole (false
// only for the creation of an empty one, see CheckMkdir).
func (g *Guard) classify(w *worst, orig, p string, acc action.Access, whole bool) {
	for { // each alias strictly shortens p, so this ends
		alias, kind := procClass(p)
		switch kind {
		case procAlias:
			p = alias
			continue
		case procOpaque:
			w.add(g.finding(orig, p, acc, Restricted, "other processes' working directories and descriptors (they cannot be resolved)"))
			return
		case procSecret:
			w.add(g.finding(orig, p, acc, Restricted, catProcMem))
			return
		case procStd:
			return
		}
		break
	}
	key := fold(p)
	base := key[strings.LastIndexByte(key, '/')+1:]
	g.classifyPrefix(w, orig, p, key, base, acc)
	// Deleting (or moving away) a directory holding protected paths
	// touches them; so does writing one where none is yet (a directory
	// moved, copied or made at ~/.vim would hold ~/.vim/plugin). The
	// workspace, the home and their ancestors exist (also where a test
	// or corpus names them without making them).
	if e := g.ancestors[key]; e != nil {
		if acc&action.AccessDelete != 0 {
			w.add(g.finding(orig, p, action.AccessDelete, e.level, "directories holding "+e.what))
		}
		// An empty directory made there (whole is false: CheckMkdir found
		// nothing, or a directory, at the path) holds nothing yet; what is
		// later written inside is judged path by path.
		if whole && acc&action.AccessWrite != 0 && !within(g.workspace, p) && !within(g.home, p) {
			// Nothing there, or unknown (an error other than "does not
			// exist"): what is made there would be new.
			if _, err := g.fs.Lstat(p); err != nil {
				w.add(g.finding(orig, p, action.AccessWrite, e.level, "directories holding "+e.what))
			}
		}
	}
	if whole && acc&action.AccessWrite != 0 {
		if e := g.cfgDirs[key]; e != nil {
			w.add(g.finding(orig, p, action.AccessWrite, e.level, "directories holding "+e.what))
		}
	}
	if lvl, what := nameLevel(base); lvl != None {
		w.add(g.finding(orig, p, acc, lvl, what))
	}
	if g.hostDoc(key, base) {
		w.add(g.finding(orig, p, acc, Tier2, catHostDocs))
	}
	if strings.Contains(key, "/.") {
		for _, r := range componentRules {
			if under, ok := hasComponents(key, r.seq); ok {
				lvl := r.level
				if r.pub && under && strings.HasSuffix(base, ".pub") {
					lvl = Protected
				}
				w.add(g.finding(orig, p, acc, lvl, r.what))
			} else if whole && acc&action.AccessWrite != 0 && endsInPrefix(key, r.seq) {
				// What is written at .git (a directory moved or copied
				// there, a gitdir file) would hold .git/hooks.
				w.add(g.finding(orig, p, action.AccessWrite, r.level, "places that would hold "+r.what))
			}
		}
	}
}

// hostDoc reports whether key (folded; base its last component) is a
// memory file Claude Code loads (hostDocNames): in the workspace, in the
// home, or in a directory above the workspace, which Claude Code reads
// on its way up from where it starts.
func (g *Guard) hostDoc(key, base string) bool {
	if !hostDocName(base) {
		return false
	}
	return within(key, fold(g.workspace)) || within(key, fold(g.home)) || within(fold(g.workspace), path.Dir(key))
}

// hostDocName reports whether a folded base name is one of hostDocNames.
func hostDocName(base string) bool {
	for n := range hostDocNames {
		if fold(n) == base {
			return true
		}
	}
	return false
}

// endsInPrefix reports whether key ends with a proper leading part of seq
// (".../.git" for .git/hooks).
func endsInPrefix(key string, seq []string) bool {
	for k := len(seq) - 1; k > 0; k-- {
		rest, ok := key, true
		for i := k - 1; i >= 0 && ok; i-- {
			rest, ok = strings.CutSuffix(rest, seq[i])
			if ok {
				rest, ok = strings.CutSuffix(rest, "/")
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// classifyPrefix walks key's ancestors from the longest; an exception
// entry (level None) ends the walk.
func (g *Guard) classifyPrefix(w *worst, orig, p, key, base string, acc action.Access) {
	for i := len(key); i > 0; i = strings.LastIndexByte(key[:i], '/') {
		e := g.prefixes[key[:i]]
		if e == nil {
			continue
		}
		if e.level == None {
			return
		}
		lvl := e.level
		if e.pub && i < len(key) && strings.HasSuffix(base, ".pub") {
			lvl = Protected
		}
		w.add(g.finding(orig, p, acc, lvl, e.what))
	}
}

// hasComponents reports whether key contains seq as consecutive
// components, and whether key goes below the sequence.
func hasComponents(key string, seq []string) (under, ok bool) {
	for i := 0; i < len(key); {
		if key[i] != '/' {
			i++
			continue
		}
		j := i
		for _, s := range seq {
			if j+1 > len(key) || !strings.HasPrefix(key[j+1:], s) ||
				(j+1+len(s) < len(key) && key[j+1+len(s)] != '/') {
				j = -1
				break
			}
			j += 1 + len(s)
		}
		if j >= 0 {
			return j < len(key), true
		}
		i++
	}
	return false, false
}

// nameLevel applies the file-name rules to a base name. Names compare
// case-insensitively on every OS: a secret's name case does not change
// what it holds.
func nameLevel(base string) (Level, string) {
	if base == "" {
		return None, ""
	}
	n := strings.ToLower(base)
	if what, ok := secretNames[n]; ok {
		return Restricted, what
	}
	for _, s := range secretSuffixes {
		if len(n) > len(s.suffix) && strings.HasSuffix(n, s.suffix) {
			return Restricted, s.what
		}
	}
	if strings.HasPrefix(n, ".env.") && !envExamples[n] {
		return Restricted, catEnv
	}
	return None, ""
}

// finding turns a level and an access into a finding; ok is false when
// the access is free at that level.
func (g *Guard) finding(orig, p string, acc action.Access, lvl Level, what string) (Finding, bool) {
	return g.findingFor(orig, p, "", acc, lvl, what)
}

// findingFor is finding for a glob pattern when pattern is not empty.
func (g *Guard) findingFor(orig, p, pattern string, acc action.Access, lvl Level, what string) (Finding, bool) {
	changes := acc & (action.AccessWrite | action.AccessDelete)
	f := Finding{Level: lvl, Path: p, Decision: verdict.Block}
	blocked := acc
	switch lvl {
	case None:
		return Finding{}, false
	case Tier1, Tier2:
		if changes == 0 {
			return Finding{}, false
		}
		f.Rule, f.Decision, f.MinTier = RuleTier, verdict.Allow, int(lvl-Tier1)+1
		f.Reason = accessVerb(changes) + " " + g.via(orig, p, pattern) + " needs tier " + strconv.Itoa(f.MinTier) +
			": changes to " + what + " need tier " + strconv.Itoa(f.MinTier) + " review"
		return f, true
	case ReadOnly, Protected:
		if changes == 0 {
			return Finding{}, false
		}
		blocked = changes
		f.Rule = RuleReadOnly
		if lvl == Protected {
			f.Rule = RuleProtected
		}
	case Restricted:
		f.Rule = RuleRestricted
	default: // Sealed and anything unknown
		f.Rule = RuleSealed
	}
	f.Reason = accessVerb(blocked) + " " + g.via(orig, p, pattern) + " is blocked: " + what + " " + levelPhrase(lvl)
	return f, true
}

// via names the path, and what it resolves to when that differs, or the
// pattern and the protected path it can match.
func (g *Guard) via(orig, p, pattern string) string {
	if pattern != "" {
		return quote(g.show(pattern)) + " (it can match " + quote(g.show(p)) + ")"
	}
	if orig == p {
		return quote(g.show(p))
	}
	return quote(g.show(orig)) + " (it resolves to " + quote(g.show(p)) + ")"
}

func levelPhrase(l Level) string {
	switch l {
	case ReadOnly:
		return "are read-only"
	case Protected:
		return "are protected against changes"
	case Restricted:
		return "are restricted"
	default:
		return "are sealed"
	}
}

// accessVerb renders an access set as a gerund: "reading and writing".
func accessVerb(acc action.Access) string {
	var parts []string
	if acc&action.AccessRead != 0 {
		parts = append(parts, "reading")
	}
	if acc&action.AccessWrite != 0 {
		parts = append(parts, "writing")
	}
	if acc&action.AccessDelete != 0 {
		parts = append(parts, "deleting")
	}
	if len(parts) == 0 {
		return "accessing"
	}
	return strings.Join(parts, " and ")
}

// fold maps a path to its lookup key: lower case where the OS compares
// names case-insensitively.
func fold(p string) string {
	if foldCase {
		return strings.ToLower(p)
	}
	return p
}

// leadingSegs is the path of the first n components of a clean absolute
// path ("/" + the first n of splitSegs(p), joined), without splitting it.
func leadingSegs(p string, n int) string {
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			if n--; n == 0 {
				return p[:i]
			}
		}
	}
	return strings.TrimRight(p, "/")
}

// splitSegs splits a clean absolute path into its components.
func splitSegs(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
