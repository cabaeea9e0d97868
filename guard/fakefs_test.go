package guard

import (
	"io/fs"
	"testing"
	"time"
)

// emptyFS has no files at all: resolution keeps every path as written.
type emptyFS struct{}

func (emptyFS) Lstat(name string) (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
}

func (emptyFS) Readlink(name string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
}

// linkFS holds only symlinks (name → target) and errors (name → error);
// every other path is a plain existing directory.
type linkFS struct {
	links map[string]string
	errs  map[string]error
}

func (m linkFS) Lstat(name string) (fs.FileInfo, error) {
	if err := m.errs[name]; err != nil {
		return nil, err
	}
	if _, ok := m.links[name]; ok {
		return info{name, fs.ModeSymlink}, nil
	}
	return info{name, fs.ModeDir}, nil
}

func (m linkFS) Readlink(name string) (string, error) {
	if t, ok := m.links[name]; ok {
		return t, nil
	}
	return "", fs.ErrInvalid
}

type info struct {
	name string
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return 0 }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

func TestResolveInjectedFS(t *testing.T) {
	fsys := linkFS{
		links: map[string]string{
			"/w/a":     "/w/b",
			"/w/b":     "/w/a",
			"/w/proc":  "/proc/self/root/home/u",
			"/w/cwd":   "/proc/42/cwd",
			"/w/empty": "",
		},
		errs: map[string]error{"/w/denied": fs.ErrPermission},
	}
	g := New("/w", "/home/u", WithFS(fsys))
	cases := []struct {
		path string
		want string
	}{
		{"/w/a/x", RuleBadPath},                 // loop
		{"/w/proc/.ssh/id_rsa", RuleRestricted}, // link through /proc/self/root
		{"/w/cwd/x", RuleRestricted},            // another process's cwd
		{"/w/empty", RuleBadPath},               // empty link target
		{"/w/denied/x", RuleBadPath},            // cannot inspect: fail closed
		{"/w/ok/x", ""},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			got, _ := g.Check(c.path, rd)
			if got.Rule != c.want {
				t.Fatalf("got %v (%s), want %v", got.Rule, got.Reason, c.want)
			}
		})
	}
}
