package guard

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Memo returns a guard that remembers what it reads of the filesystem,
// for the checks of one decision: an action whose paths share
// directories (most do) then costs one lookup per directory instead of
// one per path. The tables are shared with g; the memory is not. A memo
// guard must not outlive the decision it serves (files change), and it
// is not safe for concurrent use.
func (g *Guard) Memo() *Guard {
	if c, ok := g.fs.(*fsCache); ok {
		c.begin() // forget what changed since the last decision
	}
	// One object: the guard, its memo and room for the first lookups,
	// reused once a decision has released it.
	mg := memoPool.Get().(*memoGuard)
	mg.g = *g
	mg.g.owner = mg
	mg.m = memoFS{base: unmemo(g.fs), stats: mg.stats[:0]}
	if dr, ok := mg.m.base.(dirReader); ok {
		mg.d = memoDirFS{&mg.m, dr}
		mg.g.fs = &mg.d
	} else {
		mg.g.fs = &mg.m
	}
	return &mg.g
}

// Release gives a memo guard's memory back for a later decision's memo.
// The guard must not be used afterwards; if it is, it blocks every path
// until Memo hands its memory to another decision. Release does nothing
// to a guard that Memo did not return.
func (g *Guard) Release() {
	mg := g.owner
	if mg == nil || &mg.g != g {
		return
	}
	*mg = memoGuard{} // drop what the memo saw
	mg.g.broken = "the guard's decision has ended"
	memoPool.Put(mg)
}

var memoPool = sync.Pool{New: func() any { return new(memoGuard) }}

// memoGuard is what Memo allocates.
type memoGuard struct {
	g     Guard
	m     memoFS
	d     memoDirFS
	stats [8]lstatResult
}

// unmemo returns the filesystem below a memo: a memo of a memo starts
// afresh.
func unmemo(f FS) FS {
	switch m := f.(type) {
	case memoDirFS:
		return m.base
	case *memoDirFS:
		return m.base
	case *memoFS:
		return m.base
	}
	return f
}

// maxMemo bounds the entries a memo keeps; beyond it lookups go through.
const maxMemo = 64

type lstatResult struct {
	name string
	fi   fs.FileInfo
	err  error
}

type linkResult struct {
	name   string
	target string
	err    error
}

// memoFS caches Lstat and Readlink of an FS. ReadDir (expansion) goes
// through when the FS has it.
type memoFS struct {
	base  FS
	stats []lstatResult // a decision looks at a few directories: a list beats a map
	links []linkResult
	// dirs are the listings made in this decision, sorted by name:
	// expansion checks their entries next, and their types answer Lstat.
	dirs []dirResult
}

type dirResult struct {
	name string
	ents []fs.DirEntry
	err  error
}

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }

// listedType returns the type of name from a listing of its directory
// made in this decision.
func (m *memoFS) listedType(name string) (fs.FileMode, bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return 0, false
	}
	dir, base := name[:i], name[i+1:]
	if dir == "" {
		dir = "/"
	}
	for k := range m.dirs {
		d := &m.dirs[k]
		if d.name != dir || d.err != nil {
			continue
		}
		j, found := slices.BinarySearchFunc(d.ents, base, func(e fs.DirEntry, b string) int { return strings.Compare(e.Name(), b) })
		if !found {
			return 0, false
		}
		return d.ents[j].Type(), true
	}
	return 0, false
}

// typeInfo is the FileInfo of a listed entry: only its type is known,
// which is all symlink resolution asks.
type typeInfo struct {
	name string
	mode fs.FileMode
}

func (t typeInfo) Name() string       { return t.name }
func (t typeInfo) Size() int64        { return 0 }
func (t typeInfo) Mode() fs.FileMode  { return t.mode }
func (t typeInfo) ModTime() time.Time { return time.Time{} }
func (t typeInfo) IsDir() bool        { return t.mode.IsDir() }
func (t typeInfo) Sys() any           { return nil }

// memoDirFS is a memoFS over an FS that can list directories.
type memoDirFS struct {
	*memoFS
	dr dirReader
}

func (m memoDirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	for i := range m.dirs {
		if m.dirs[i].name == name {
			return m.dirs[i].ents, m.dirs[i].err
		}
	}
	if err := m.absent(name, true); err != nil {
		return nil, err
	}
	ents, err := m.dr.ReadDir(name)
	if !slices.IsSortedFunc(ents, byName) {
		ents = slices.SortedFunc(slices.Values(ents), byName) // os.ReadDir sorts; other FSs may not
	}
	if len(m.dirs) < maxMemo {
		m.dirs = append(m.dirs, dirResult{name, ents, err})
	}
	return ents, err
}

var (
	_ FS        = (*memoFS)(nil)
	_ dirReader = memoDirFS{}
	_ dirReader = (*memoDirFS)(nil)
)

func newMemoFS(base FS) FS {
	base = unmemo(base)
	m := &memoFS{base: base}
	if dr, ok := base.(dirReader); ok {
		return memoDirFS{m, dr}
	}
	return m
}

func (m *memoFS) Lstat(name string) (fs.FileInfo, error) {
	for i := range m.stats {
		if m.stats[i].name == name {
			return m.stats[i].fi, m.stats[i].err
		}
	}
	if t, ok := m.listedType(name); ok {
		return typeInfo{path.Base(name), t}, nil
	}
	if err := m.absent(name, false); err != nil {
		return nil, err
	}
	fi, err := m.base.Lstat(name)
	if len(m.stats) < maxMemo {
		m.stats = append(m.stats, lstatResult{name, fi, err})
	}
	return fi, err
}

func (m *memoFS) Readlink(name string) (string, error) {
	for i := range m.links {
		if m.links[i].name == name {
			return m.links[i].target, m.links[i].err
		}
	}
	t, err := m.base.Readlink(name)
	if len(m.links) < maxMemo {
		m.links = append(m.links, linkResult{name, t, err})
	}
	return t, err
}

// absent answers for a name the memo already knows cannot exist: one of
// its directories was seen missing, or seen as a file (not a link, whose
// target could be a directory). self also counts name itself when it was
// seen missing or as a non-directory (for listing it). The error is the
// one the system would give; nil means "ask the filesystem".
func (m *memoFS) absent(name string, self bool) error {
	for i := range m.stats {
		s := &m.stats[i]
		if len(s.name) > len(name) || !strings.HasPrefix(name, s.name) {
			continue
		}
		if len(s.name) == len(name) {
			if !self {
				continue
			}
		} else if s.name != "/" && name[len(s.name)] != '/' {
			continue
		}
		switch {
		case s.err != nil && errors.Is(s.err, fs.ErrNotExist):
			return &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOENT}
		case s.err == nil && !s.fi.IsDir() && s.fi.Mode()&fs.ModeSymlink == 0:
			return &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOTDIR}
		}
	}
	return nil
}
