package guard

import (
	"errors"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/glob"
	"github.com/parallax/parallax/verdict"
)

// This file judges what a recursive operation reaches inside the
// workspace's own .parallax when the executor does not hide it.
//
// Our own agent runs every command in a sandbox that shows .parallax as an
// empty directory (WithInternalsHidden): a recursive read or change of the
// workspace cannot reach the engine's files, and checkTree leaves them to
// that sandbox. Through the Claude Code hook, the MCP proxy, the HTTP API
// and `parallax shield evaluate`, an ALLOW runs with the user's full
// rights: `find . -name config.yaml -exec sed -i … {} +` rewrites
// .parallax/config.yaml (the agent installs its own judge), `grep -r .
// --include=*.token .` prints the API token. CheckInternals judges such an
// operation by every entry it could reach there: what exists (listed,
// bounded) plus the layout the engine writes, each entry put through the
// operation's selection (the pattern's trailing name and the Selector:
// find's expression, grep's --include/--exclude-dir, …).
//
// Decision table (internals not hidden; E is a reached entry):
//
//	operation                     E                                   decision
//	write, delete, chmod          any                                 BLOCK guard_sealed
//	read, selection names E       credential or record                BLOCK guard_sealed
//	read, unfiltered              credential, content test shows it   BLOCK guard_sealed
//	read, unfiltered              record, content test shows it       ESCALATE guard_tree
//	read, unfiltered              credential or record, no test known ESCALATE guard_tree
//	read, any                     plain (config.yaml, policy.yaml)    nothing (left to Check)
//	listing over its bounds       -                                   write BLOCK, read ESCALATE
//
// "Names E": the selection reaches E but not an ordinary file next to
// .parallax (probeName): it aims at names, and a name aimed at in the
// engine's directory has no business there. "Unfiltered": it takes every
// file (grep -rn TODO ., cat $(find . -type f)). Developers run grep -rn
// WORD . all day through the hook, so an unfiltered search is tested
// exactly instead of escalated: the Selector says whether its pattern
// matches a line of the entry (Reveals), the guard reads the small files
// (bounded) and asks. A credential whose content the search would print
// is a read of that credential (BLOCK); no match prints nothing of it.
// Records (the audit chain, the database) legitimately hold the words of
// the project a developer searches for (paths in reasons, approvals), so
// a match there needs review (ESCALATE) rather than a refusal. Anything
// that cannot be tested (cat, tar, an unknown regex, a file over the
// bound) ESCALATEs with a reason naming the entries reached.
//
// Chronicle objects (chronicle/objects/…, named by their SHA-256) are
// copies of the workspace's own files, which an unfiltered operation
// reaches in the working tree anyway: they are not content-tested for
// reads (a search for TODO would match every snapshot of a source file).
// A snapshot of a file the guard restricts (a deleted .env) is therefore
// not protected against an unfiltered search: a documented limit.

// Selector narrows what a recursive operation reaches below its root, as
// the shell analyser understood the command (shell.Selection). Paths are
// slash-separated and relative to the root ("" is the root).
type Selector interface {
	// Descend reports whether the walk may enter directory rel (false:
	// pruned or excluded; nothing below it is reached).
	Descend(rel string) bool
	// Reach reports whether the operation may act on the entry rel, a
	// directory when dir is set. When unsure, true.
	Reach(rel string, dir bool) bool
	// Reveals reports whether the operation shows any of data when it
	// reads a file holding it; known is false when that cannot be told
	// (a reader that prints the whole file, an unknown pattern).
	Reveals(data []byte) (show, known bool)
}

// WithInternalsHidden says that the executor of what this guard allows
// hides the workspace's .parallax from commands (the own agent's
// per-command sandbox shows it as an empty directory). Recursive
// operations are then not judged by what .parallax holds. Without it
// (the default: fail closed) CheckInternals judges them.
func WithInternalsHidden() Option {
	return func(g *Guard) { g.hidden = true }
}

// InternalsHidden reports whether the guard was built WithInternalsHidden.
func (g *Guard) InternalsHidden() bool { return g.hidden }

// Bounds of the listing of .parallax and of the content tests.
const (
	maxInternalEntries = 4096
	maxInternalDepth   = 8
	maxCredentialBytes = 64 << 10
	maxRecordBytes     = 4 << 20
	maxTestedBytes     = 16 << 20
)

// probeName is an ordinary file name no selection that aims at the
// engine's files matches: a selection that reaches it takes every file.
const probeName = "zq9-ordinary-file.txt"

// internalKind is what an entry of .parallax holds, for reads.
type internalKind uint8

const (
	internalPlain      internalKind = iota // config.yaml, policy.yaml, .gitignore: settings
	internalRecord                         // audit chain, database, backups, unknown files
	internalCredential                     // *.token
	internalSnapshot                       // chronicle objects: copies of workspace files
)

type internalEntry struct {
	rel  string // below .parallax
	dir  bool
	kind internalKind
}

// internalLayout is what the engine writes to .parallax (workspace
// package: layout.go, audit.DefaultPath, DBPath): judged as present even
// when the listing does not show it (a workspace being initialised, the
// corpus's workspace that does not exist on disk).
var internalLayout = []internalEntry{
	{rel: "config.yaml"}, {rel: "policy.yaml"}, {rel: ".gitignore"},
	{rel: "canary.token"}, {rel: "api.token"}, {rel: "client.token"},
	{rel: "audit.jsonl"}, {rel: "parallax.db"}, {rel: "parallax.db-wal"},
	{rel: "chronicle", dir: true}, {rel: "backups", dir: true},
}

// snapshotNames stand for the chronicle's objects (hex SHA-256 names) in
// a listing: a selection that matches none of them is taken to match no
// object. A name filter built to match some hashes only (a fragment of
// one) could miss them: a known limit, for writes only (reads skip
// snapshot copies).
var snapshotNames = [...]string{
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
	"00000000000000000000000000000000000000000000000000000000000000ff",
}

func classifyInternal(rel string, dir bool) internalKind {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	switch {
	case dir:
		return internalPlain
	case strings.HasSuffix(base, ".token"):
		return internalCredential
	case strings.Contains("/"+rel, "/chronicle/objects/"):
		return internalSnapshot
	case base == "config.yaml" || base == "policy.yaml" || base == ".gitignore":
		return internalPlain
	}
	return internalRecord
}

// listInternals lists the workspace's .parallax (bounded: depth and
// entries) merged with the layout; complete is false when something could
// not be listed or a bound was exceeded.
func (g *Guard) listInternals() (out []internalEntry, complete bool) {
	dir := g.workspace + "/.parallax"
	seen := map[string]bool{}
	add := func(rel string, isDir bool) {
		if !seen[rel] {
			seen[rel] = true
			out = append(out, internalEntry{rel: rel, dir: isDir, kind: classifyInternal(rel, isDir)})
		}
	}
	for _, e := range internalLayout {
		add(e.rel, e.dir)
	}
	fi, err := g.fs.Lstat(dir)
	switch {
	case absent(err):
		return out, true
	case err != nil || !fi.IsDir():
		return out, false // a link or an unreadable directory: what it holds is unknown
	}
	dr, ok := g.fs.(dirReader)
	if !ok {
		return out, false
	}
	type item struct {
		rel   string
		depth int
	}
	queue := []item{{"", 0}}
	n := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		full := dir
		if it.rel != "" {
			full += "/" + it.rel
		}
		ents, err := dr.ReadDir(full)
		if err != nil {
			return out, false
		}
		for _, e := range ents {
			if n++; n > maxInternalEntries {
				return out, false
			}
			rel := e.Name()
			if it.rel != "" {
				rel = it.rel + "/" + rel
			}
			isDir := e.IsDir()
			add(rel, isDir)
			if isDir && rel == "chronicle/objects" {
				// Content-addressed snapshot copies, as many as the
				// workspace has history: not walked (a long history would
				// put every recursive command over the bound), stood for
				// by names of their shape (two hex digits, then 62).
				for _, h := range snapshotNames {
					add("chronicle/objects/"+h[:2]+"/"+h[2:], false)
				}
				continue
			}
			if isDir {
				if it.depth+1 >= maxInternalDepth {
					return out, false
				}
				queue = append(queue, item{rel, it.depth + 1})
			}
		}
	}
	return out, true
}

// CheckInternals judges a recursive pattern ("ROOT/**", "ROOT/**/REST",
// shell.PathUse.Recursive) by what it reaches in the workspace's
// .parallax, narrowed by sel (nil: every entry the pattern allows). It
// finds nothing when the guard was built WithInternalsHidden, when the
// pattern is not recursive or its root does not hold .parallax. See the
// decision table at the top of internals.go.
func (g *Guard) CheckInternals(pattern string, acc action.Access, sel Selector) (Finding, bool) {
	return g.current().checkInternals(pattern, acc, sel)
}

func (g *Guard) checkInternals(pattern string, acc action.Access, sel Selector) (Finding, bool) {
	if g.hidden {
		return Finding{}, false
	}
	acc = normAccess(acc)
	_, clean, bad := g.prepare(pattern, acc)
	if bad.Rule != "" {
		return bad, true
	}
	i := strings.Index(clean, "/**")
	if i < 0 || (i+3 < len(clean) && clean[i+3] != '/') {
		return Finding{}, false
	}
	root, rest := clean[:i], strings.TrimPrefix(clean[i+3:], "/")
	if glob.HasMeta(root) {
		// Wildcards above the tree: judged from their literal directory,
		// every entry below it reachable.
		root, rest, sel = path.Dir(glob.LiteralPrefix(root)+"x"), "", nil
	}
	if root == "" {
		root = "/"
	}
	res, err := g.resolve(root)
	if err != nil {
		return g.badPath(root, acc, "it cannot be resolved ("+err.Error()+")"), true
	}
	dir := g.workspace + "/.parallax"
	if !within(dir, res) || within(res, dir) {
		return Finding{}, false // nothing of it below the root, or the root is in it (Check's)
	}
	prefix := strings.TrimPrefix(strings.TrimPrefix(dir, res), "/")
	r := internalReach{sel: sel, prefix: prefix, rest: rest}
	if !r.descends() {
		return Finding{}, false
	}
	ents, complete := g.listInternals()
	write := acc&(action.AccessWrite|action.AccessDelete) != 0
	if !complete {
		why := "a recursive operation on " + g.show(root) + " reaches " + g.show(dir) +
			", whose entries cannot all be listed (over " + strconv.Itoa(maxInternalEntries) + " entries, too deep, or unreadable)"
		if write {
			return g.internalFinding(root, acc, verdict.Block, RuleSealed, why+"; agent internals are sealed"), true
		}
		return g.internalFinding(root, acc, verdict.Escalate, RuleTree, why+"; it needs review"), true
	}
	if write {
		for _, e := range ents {
			if r.reaches(e.rel, e.dir) {
				return g.internalFinding(root, acc, verdict.Block, RuleSealed, "a recursive change under "+g.show(root)+
					" reaches "+g.show(dir+"/"+e.rel)+" (agent internals are sealed; leave .parallax out, e.g. -path ./.parallax -prune)"), true
			}
		}
		return Finding{}, false
	}
	return g.internalRead(root, acc, &r, ents)
}

// internalRead applies the read rows of the decision table.
func (g *Guard) internalRead(root string, acc action.Access, r *internalReach, ents []internalEntry) (Finding, bool) {
	dir := g.workspace + "/.parallax"
	aimed := r.aimed()
	var untested []string
	budget := int64(maxTestedBytes)
	for _, e := range ents {
		if e.kind == internalPlain || e.kind == internalSnapshot || e.dir || !r.reaches(e.rel, false) {
			continue
		}
		name := g.show(dir + "/" + e.rel)
		if aimed {
			return g.internalFinding(root, acc, verdict.Block, RuleSealed, "a recursive read of "+g.show(root)+
				" selects "+name+" by name (agent internals are sealed)"), true
		}
		limit := int64(maxRecordBytes)
		if e.kind == internalCredential {
			limit = maxCredentialBytes
		}
		show, known := g.reveals(r.sel, dir+"/"+e.rel, min(limit, budget), &budget)
		switch {
		case !known:
			untested = append(untested, name)
		case show && e.kind == internalCredential:
			return g.internalFinding(root, acc, verdict.Block, RuleSealed, "a recursive read of "+g.show(root)+
				" would print lines of "+name+" (a credential of the workspace)"), true
		case show:
			untested = append(untested, name)
		}
	}
	if len(untested) == 0 {
		return Finding{}, false
	}
	if len(untested) > 3 {
		untested = append(untested[:3], "…")
	}
	return g.internalFinding(root, acc, verdict.Escalate, RuleTree, "a recursive read of "+g.show(root)+
		" could show agent internals ("+strings.Join(untested, ", ")+"); it needs review, or leave .parallax out"), true
}

// reveals reads the file at p (at most limit bytes, charged to budget)
// and asks sel whether the operation would show any of it. A file that
// does not exist shows nothing; one that cannot be read or is over the
// limit cannot be told.
func (g *Guard) reveals(sel Selector, p string, limit int64, budget *int64) (show, known bool) {
	if sel == nil || limit <= 0 {
		return false, false
	}
	if _, known := sel.Reveals(nil); !known {
		return false, false // a reader that shows the whole file: whatever it holds
	}
	data, err := g.readFile(p, limit)
	switch {
	case absent(err):
		return false, true
	case err != nil:
		return false, false
	}
	*budget -= int64(len(data))
	return sel.Reveals(data)
}

// errTooLarge: a file over the read limit.
var errTooLarge = errors.New("file over the read limit")

// readFile reads at most limit bytes of the regular file p, not following
// a final link. A guard built WithFS reads through its FS when it offers
// ReadFile, else cannot read (the caller counts the content as unknown).
func (g *Guard) readFile(p string, limit int64) ([]byte, error) {
	if g.custom {
		fr, ok := unmemo(g.fs).(interface{ ReadFile(string) ([]byte, error) })
		if !ok {
			return nil, errors.New("no file reader")
		}
		b, err := fr.ReadFile(p)
		if err == nil && int64(len(b)) > limit {
			return nil, errTooLarge
		}
		return b, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, err
}

func (g *Guard) internalFinding(root string, acc action.Access, d verdict.Decision, rule, why string) Finding {
	return Finding{Rule: rule, Level: Sealed, Path: g.show(root), Decision: d, Reason: why}
}

// internalReach decides which entries of .parallax a recursive operation
// reaches: the directories from its root down to .parallax must be
// descended, and an entry must match the pattern's trailing part (rest)
// and the selector.
type internalReach struct {
	sel    Selector
	prefix string // .parallax relative to the root ("…/.parallax")
	rest   string // the pattern after "ROOT/**/" ("" : everything)
}

// aimed reports whether the selection aims at names: it does not reach
// an ordinary file (or, when it selects .parallax itself, an ordinary
// directory) next to .parallax.
func (r *internalReach) aimed() bool {
	return !r.one(path.Join(path.Dir(r.prefix), probeName), r.one(r.prefix, true))
}

// descends reports whether the walk enters .parallax at all.
func (r *internalReach) descends() bool {
	if r.sel == nil {
		return true
	}
	for i := 0; i <= len(r.prefix); i++ {
		if i == len(r.prefix) || r.prefix[i] == '/' {
			if !r.sel.Descend(r.prefix[:i]) {
				return false
			}
		}
	}
	return true
}

// reaches reports whether the operation acts on the entry rel (below
// .parallax), directly or as part of a directory above it that it acts
// on whole (find -name backups -exec rm -rf {} +).
func (r *internalReach) reaches(rel string, dir bool) bool {
	full := r.prefix + "/" + rel
	if r.one(r.prefix, true) {
		return true // .parallax itself is selected: everything in it goes with it
	}
	for i := len(r.prefix) + 1; i < len(full); i++ {
		if full[i] != '/' {
			continue
		}
		if r.sel != nil && !r.sel.Descend(full[:i]) {
			return false
		}
		if r.one(full[:i], true) {
			return true
		}
	}
	return r.one(full, dir)
}

// one reports whether the entry at rel (from the root) itself is selected.
func (r *internalReach) one(rel string, dir bool) bool {
	if r.rest != "" && !restMatches(r.rest, rel) {
		return false
	}
	return r.sel == nil || r.sel.Reach(rel, dir)
}

// restMatches reports whether the trailing segments of rel match rest's
// (shell glob syntax, find semantics: wildcards match a leading dot).
func restMatches(rest, rel string) bool {
	if strings.Trim(rest, "*/") == "" {
		return true
	}
	for rest != "" {
		if rel == "" {
			return false
		}
		q := rest[strings.LastIndexByte(rest, '/')+1:]
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		if q == "**" {
			return true
		}
		if gq, ext, ok := glob.ToGo(fold(q)); ok && !ext && !segMatch(gq, fold(name), true) {
			return false // an extglob or a malformed segment may match: kept
		}
		rest = strings.TrimSuffix(rest[:len(rest)-len(q)], "/")
		rel = strings.TrimSuffix(rel[:len(rel)-len(name)], "/")
	}
	return true
}
