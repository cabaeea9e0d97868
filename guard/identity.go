package guard

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// This file judges a regular file by what it is, not by the name it was
// reached through. A hard link is the same file under another name: if
// notes.txt in the workspace is a link to ~/.ssh/id_ed25519 (made by
// someone else, or on a filesystem where the agent could), reading
// notes.txt reads the key, and no path rule sees it.
//
// A file with one link has one name, the one the tables judged. For an
// existing regular file with more links (st_nlink > 1), the guard
// compares its identity (device, inode) with those of the files in the
// areas it restricts or seals inside the home and the workspace (~/.ssh,
// ~/.aws, ~/.gnupg, ~/.kube, ~/.netrc, ~/.git-credentials, …, the
// workspace's .parallax): a match is judged as that file, with a reason
// naming both names. The index of those identities is built on the
// first such check, bounded (depth, entries, directories), and rebuilt
// when a directory it walked (or an area that did not exist) changes: a
// new file there changes its directory's mtime; a new link to an old
// file does not change the file's identity. An index over its bounds
// cannot tell: every multi-link file then ESCALATEs (fail closed).
//
// Cost: one lstat per judged path (memoised within a decision); the
// index is consulted only for nlink > 1, mostly package stores (pnpm
// hard-links node_modules to ~/.local/share/pnpm), which match nothing
// and stay ALLOW. Recursive operations (ROOT/**) are not expanded file
// by file: links inside a tree are left to the executor's sandbox, as
// symbolic links are (checkTree).

// RuleIdentity: a multi-link file whose identity the guard cannot
// compare (the index of restricted files is over its bounds or cannot
// be read): it needs review.
const RuleIdentity = "guard_identity"

// Bounds of the identity index.
const (
	maxIDEntries = 16384
	maxIDDirs    = 1024
	maxIDDepth   = 8
)

// FileID is a file's identity: its device and inode numbers.
type FileID struct{ Dev, Ino uint64 }

// idFile is a restricted file in the index, with the entry protecting it.
type idFile struct {
	path string
	e    *entry
}

// dirStamp is what a walked directory (or an area that did not exist)
// looked like when the index was built.
type dirStamp struct {
	path   string
	exists bool
	id     FileID
	mtime  int64
}

// identityIndex is shared by every memo of a guard.
type identityIndex struct {
	mu       sync.Mutex
	built    bool
	complete bool
	files    map[FileID]idFile
	stamps   []dirStamp
}

// checkIdentity judges the existing regular file clean resolves to (res)
// by its identity when it has more than one link. The lstat is the one
// resolve made (memoised).
func (g *Guard) checkIdentity(w *worst, clean, res string, acc action.Access, whole bool) {
	if g.ids == nil {
		return
	}
	if !g.custom {
		id, nlink, regular, ok := lstatID(res)
		if ok && regular && nlink >= 2 {
			g.judgeID(w, clean, res, id, acc, whole, true)
		}
		return
	}
	fi, err := g.fs.Lstat(res)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	id, nlink, ok := statID(fi)
	if !ok && !g.custom {
		// The memo answered from a directory listing (type only): ask
		// the kernel.
		if fi, err = os.Lstat(res); err != nil || !fi.Mode().IsRegular() {
			return
		}
		id, nlink, ok = statID(fi)
	}
	if !ok || nlink < 2 {
		return
	}
	g.judgeID(w, clean, res, id, acc, whole, true)
}

// CheckFileID judges the file p (as the executor planned it) by its
// identity: a file of a restricted area under another name is judged as
// that file. ok is false when nothing applies. A plan carries no link
// count, so an identity the index cannot tell is left to Check on the
// path (which sees the count and escalates a multi-link file).
func (g *Guard) CheckFileID(p string, id FileID, acc action.Access) (Finding, bool) {
	g = g.current()
	if g.broken != "" || g.ids == nil {
		return Finding{}, false
	}
	var w worst
	g.judgeID(&w, p, p, id, normAccess(acc), true, false)
	return w.f, w.ok
}

// judgeID judges id as the restricted file it is, if it is one; strict:
// an identity the index cannot tell escalates.
func (g *Guard) judgeID(w *worst, orig, res string, id FileID, acc action.Access, whole, strict bool) {
	f, known := g.ids.lookup(g, id)
	switch {
	case !known && !strict:
		return
	case !known:
		w.add(Finding{Rule: RuleIdentity, Level: Restricted, Path: g.show(res), Decision: verdict.Escalate,
			Reason: g.show(orig) + " has other names (hard links) and the guard cannot tell whether one is a " +
				"restricted file (the index of restricted areas is over its bounds or unreadable); it needs review"}, true)
		return
	case f.e == nil || f.path == res:
		return
	}
	var sub worst
	g.classify(&sub, orig, f.path, acc, whole)
	if !sub.ok {
		return
	}
	sub.f.Reason += " (" + g.show(orig) + " is a hard link to " + g.show(f.path) + ": the same file)"
	w.add(sub.f, true)
}

// lookup finds id among the restricted files, rebuilding the index when
// it is missing or stale. known is false when the index is incomplete.
func (x *identityIndex) lookup(g *Guard, id FileID) (idFile, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.built || x.stale(g) {
		x.build(g)
	}
	if f, ok := x.files[id]; ok {
		return f, true
	}
	return idFile{}, x.complete
}

// stale reports whether a directory the index walked changed.
func (x *identityIndex) stale(g *Guard) bool {
	for _, s := range x.stamps {
		if g.stampOf(s.path) != s {
			return true
		}
	}
	return false
}

func (g *Guard) stampOf(p string) dirStamp {
	fi, err := g.rawLstat(p)
	if err != nil {
		return dirStamp{path: p}
	}
	id, _, _ := statID(fi)
	return dirStamp{path: p, exists: true, id: id, mtime: fi.ModTime().UnixNano()}
}

// rawLstat is Lstat past the guard's caches: the index validates itself
// against the directories' current state.
func (g *Guard) rawLstat(p string) (fs.FileInfo, error) {
	if g.custom {
		return unmemo(g.fs).Lstat(p)
	}
	return os.Lstat(p)
}

// idAreas are the entries the index covers: what the tables restrict or
// seal inside the home and the workspace, outermost first.
func (g *Guard) idAreas() []*entry {
	var out []*entry
	for _, e := range g.prefixes {
		if e.level >= Restricted && (within(e.path, g.home) || within(e.path, g.workspace)) &&
			e.path != g.home && e.path != g.workspace {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.path, b.path) })
	return out
}

// build walks the areas (bounded) and records every regular file's
// identity and every directory's stamp.
func (x *identityIndex) build(g *Guard) {
	x.built, x.complete = true, true
	x.files = make(map[FileID]idFile, 64)
	x.stamps = x.stamps[:0]
	dr, _ := unmemo(g.fs).(dirReader)
	if !g.custom {
		dr = osFS{}
	}
	n := 0
	type item struct {
		p     string
		depth int
		e     *entry
	}
	var queue []item
	for _, e := range g.idAreas() {
		queue = append(queue, item{e.path, 0, e})
	}
	for len(queue) > 0 && x.complete {
		it := queue[0]
		queue = queue[1:]
		fi, err := g.rawLstat(it.p)
		switch {
		case absent(err) && it.depth == 0:
			x.stamps = append(x.stamps, dirStamp{path: it.p}) // created later: rebuild
			continue
		case err != nil:
			x.complete = false
			continue
		case fi.Mode().IsRegular():
			if id, _, ok := statID(fi); ok {
				if _, dup := x.files[id]; !dup {
					x.files[id] = idFile{path: it.p, e: it.e}
				}
			}
			if it.depth == 0 {
				x.stamps = append(x.stamps, g.stampOf(it.p)) // replaced: rebuild
			}
			continue
		case !fi.IsDir():
			if it.depth == 0 {
				x.stamps = append(x.stamps, g.stampOf(it.p))
			}
			continue // a link or a special file: its target is judged by its own name
		}
		if len(x.stamps) >= maxIDDirs || it.depth >= maxIDDepth || dr == nil {
			x.complete = false
			break
		}
		x.stamps = append(x.stamps, g.stampOf(it.p))
		ents, err := dr.ReadDir(it.p)
		if err != nil {
			x.complete = false
			break
		}
		for _, de := range ents {
			if n++; n > maxIDEntries {
				x.complete = false
				break
			}
			queue = append(queue, item{it.p + "/" + de.Name(), it.depth + 1, it.e})
		}
	}
}
