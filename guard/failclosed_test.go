package guard

import (
	"io/fs"
	"syscall"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// errFS is a filesystem of directories (dirs: path → entries) where
// every other path does not exist, except those given an Lstat or a
// ReadDir error.
type errFS struct {
	dirs     map[string][]string // directory → names of subdirectories
	statErrs map[string]error
	listErrs map[string]error
}

func (m errFS) Lstat(name string) (fs.FileInfo, error) {
	if err := m.statErrs[name]; err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	if _, ok := m.dirs[name]; ok || name == "/" {
		return info{name, fs.ModeDir}, nil
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOENT}
}

func (m errFS) Readlink(name string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
}

func (m errFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := m.listErrs[name]; err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	subs, ok := m.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	var out []fs.DirEntry
	for _, s := range subs {
		out = append(out, fs.FileInfoToDirEntry(info{s, fs.ModeDir}))
	}
	return out, nil
}

// TestUnlistableDirectoryIsUnknown: a directory the expansion of a
// pattern cannot list may hold a planted link: the pattern needs review.
// One nobody can list (missing, not a directory, a link loop) holds
// nothing.
func TestUnlistableDirectoryIsUnknown(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		listErr error // of /w/src
		want    verdict.Decision
		ok      bool
	}{
		{"star, permission denied", "/w/src/*.go", syscall.EACCES, verdict.Escalate, true},
		{"star, i/o error", "/w/src/*.go", syscall.EIO, verdict.Escalate, true},
		{"globstar, permission denied", "/w/*/**/*.go", syscall.EACCES, verdict.Escalate, true},
		{"star, no such directory", "/w/src/*.go", syscall.ENOENT, verdict.Allow, false},
		{"star, not a directory", "/w/src/*.go", syscall.ENOTDIR, verdict.Allow, false},
		{"star, link loop", "/w/src/*.go", syscall.ELOOP, verdict.Allow, false},
		{"star, listed", "/w/src/*.go", nil, verdict.Allow, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := errFS{dirs: map[string][]string{"/w": {"src"}, "/w/src": {"pkg"}, "/w/src/pkg": nil}}
			if tt.listErr != nil {
				fsys.listErrs = map[string]error{"/w/src": tt.listErr}
			}
			g := New("/w", "/home/u", WithFS(fsys))
			f, ok := g.CheckGlob(tt.pattern, action.AccessRead)
			if ok != tt.ok || ok && (f.Decision != tt.want || f.Rule != RuleBadPath) {
				t.Errorf("got %v %+v, want a finding: %v (%v %s)", ok, f, tt.ok, tt.want, RuleBadPath)
			}
		})
	}
	t.Run("a block elsewhere still wins", func(t *testing.T) {
		fsys := errFS{dirs: map[string][]string{"/w": {"a", "b"}, "/w/a": nil, "/w/b": {"id_rsa"}},
			listErrs: map[string]error{"/w/a": syscall.EACCES}}
		g := New("/w", "/home/u", WithFS(fsys))
		if f, ok := g.CheckGlob("/w/*/*", action.AccessRead); !ok || f.Decision != verdict.Block {
			t.Errorf("got %v %+v, want a BLOCK", ok, f)
		}
	})
}

// TestUninspectableEntryIsPresent: an entry that cannot be inspected
// (an Lstat error other than "does not exist") counts as present where
// presence is what makes the access sensitive: a protected entry below
// a recursive change, a directory holding secrets a write would create.
func TestUninspectableEntryIsPresent(t *testing.T) {
	tests := []struct {
		name    string
		path    string // the entry given the error
		check   func(g *Guard) (Finding, bool)
		statErr error
		want    bool
	}{
		{"below a recursive delete, permission denied", "/w/.parallax",
			func(g *Guard) (Finding, bool) { return g.CheckGlob("/w/**", action.AccessDelete) }, syscall.EACCES, true},
		{"below a recursive delete, i/o error", "/w/.parallax",
			func(g *Guard) (Finding, bool) { return g.CheckGlob("/w/**", action.AccessDelete) }, syscall.EIO, true},
		{"below a recursive delete, absent", "/w/.parallax",
			func(g *Guard) (Finding, bool) { return g.CheckGlob("/w/**", action.AccessDelete) }, syscall.ENOENT, false},
		// Resolution stops looking at the first missing component
		// (~/.local here): the directory's own lstat is classify's.
		{"a directory holding secrets written whole, permission denied", "/home/u/.local/share",
			func(g *Guard) (Finding, bool) { return g.Check("/home/u/.local/share", action.AccessWrite) }, syscall.EACCES, true},
		{"a directory holding secrets written whole, absent", "/home/u/.local/share",
			func(g *Guard) (Finding, bool) { return g.Check("/home/u/.local/share", action.AccessWrite) }, syscall.ENOENT, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := errFS{dirs: map[string][]string{"/w": nil, "/home": {"u"}, "/home/u": nil}}
			if tt.statErr != nil {
				fsys.statErrs = map[string]error{tt.path: tt.statErr}
			} else {
				fsys.dirs[tt.path] = nil
			}
			g := New("/w", "/home/u", WithFS(fsys))
			f, ok := tt.check(g)
			if ok != tt.want || ok && f.Decision == verdict.Allow {
				t.Errorf("got %v %+v, want a finding that is not ALLOW: %v", ok, f, tt.want)
			}
		})
	}
}
