package guard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// countFS counts the lookups that reach a linkFS.
type countFS struct {
	linkFS
	lstats, readlinks int
}

func (c *countFS) Lstat(name string) (fs.FileInfo, error) {
	c.lstats++
	return c.linkFS.Lstat(name)
}

func (c *countFS) Readlink(name string) (string, error) {
	c.readlinks++
	return c.linkFS.Readlink(name)
}

func TestMemoSameFindingsFewerLookups(t *testing.T) {
	links := map[string]string{"/home/dev/project/keys": "/home/dev/.ssh"}
	paths := []string{"/home/dev/project/a.go", "/home/dev/project/b.go", "/home/dev/project/keys/id_rsa",
		"/home/dev/project/keys/config", "/home/dev/project/src/c.go"}
	plain := &countFS{linkFS: linkFS{links: links}}
	memo := &countFS{linkFS: linkFS{links: links}}
	g := New("/home/dev/project", "/home/dev", WithFS(plain))
	m := New("/home/dev/project", "/home/dev", WithFS(memo)).Memo()
	for _, p := range paths {
		f1, ok1 := g.Check(p, action.AccessRead)
		f2, ok2 := m.Check(p, action.AccessRead)
		if ok1 != ok2 || f1 != f2 {
			t.Errorf("%s: memo guard got %+v %v, plain guard %+v %v", p, f2, ok2, f1, ok1)
		}
	}
	if _, ok := m.Check("/home/dev/project/keys/id_rsa", action.AccessRead); !ok {
		t.Errorf("a key behind a linked directory must still be found through the memo")
	}
	if memo.lstats*2 > plain.lstats {
		t.Errorf("memo made %d lookups, plain %d: want at most half", memo.lstats, plain.lstats)
	}
	if memo.readlinks > 1 {
		t.Errorf("memo read the link %d times, want once", memo.readlinks)
	}
}

func TestMemoKeepsExpansion(t *testing.T) {
	g := New("/w", "/h")
	if _, ok := g.Memo().fs.(dirReader); !ok {
		t.Fatalf("a memo over the OS filesystem must still list directories")
	}
	if _, ok := New("/w", "/h", WithFS(emptyFS{})).Memo().fs.(dirReader); ok {
		t.Fatalf("a memo must not invent listing for an FS without it")
	}
}

// osCountFS is the real filesystem, counting what reaches it.
type osCountFS struct{ lstats, readdirs int }

func (c *osCountFS) Lstat(name string) (fs.FileInfo, error) { c.lstats++; return osFS{}.Lstat(name) }
func (c *osCountFS) Readlink(name string) (string, error)   { return osFS{}.Readlink(name) }
func (c *osCountFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.readdirs++
	return osFS{}.ReadDir(name)
}

// TestMemoKnowsWhatCannotExist: below a directory seen missing, or below
// a plain file, nothing exists; the memo answers that without asking,
// with the error the system gives, and still asks below a link.
func TestMemoKnowsWhatCannotExist(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	c := &osCountFS{}
	m := newMemoFS(c).(memoDirFS)
	for _, seen := range []string{"missing", "file", "link"} {
		m.Lstat(filepath.Join(dir, seen))
	}
	asked := c.lstats
	for _, tc := range []struct {
		name string
		want error
	}{
		{"missing/a", syscall.ENOENT},
		{"missing/a/b/c", syscall.ENOENT},
		{"file/x", syscall.ENOTDIR},
		{"file/x/y", syscall.ENOTDIR},
	} {
		p := filepath.Join(dir, tc.name)
		_, err := m.Lstat(p)
		_, sysErr := os.Lstat(p)
		if !errors.Is(err, tc.want) || !errors.Is(sysErr, tc.want) {
			t.Errorf("Lstat %s: memo %v, system %v, want %v from both", tc.name, err, sysErr, tc.want)
		}
		if _, err := m.ReadDir(p); !errors.Is(err, tc.want) {
			t.Errorf("ReadDir %s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if c.lstats != asked || c.readdirs != 0 {
		t.Errorf("the memo asked the filesystem %d more times and listed %d directories, want none",
			c.lstats-asked, c.readdirs)
	}
	if _, err := m.ReadDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) || c.readdirs != 0 {
		t.Errorf("listing a directory seen missing: %v after %d listings, want ENOENT without one", err, c.readdirs)
	}
	// Below a link the memo cannot know: it asks.
	if _, err := m.Lstat(filepath.Join(dir, "link", "x")); !errors.Is(err, fs.ErrNotExist) || c.lstats != asked+1 {
		t.Errorf("below a link: %v with %d lookups, want the system's answer from one lookup", err, c.lstats-asked)
	}
	// A sibling whose name extends a missing one is not below it.
	if _, err := m.Lstat(filepath.Join(dir, "missingness")); c.lstats != asked+2 {
		t.Errorf("a sibling sharing a prefix was answered from the memo (%v)", err)
	}
}

// TestMemoListingAnswersLstat: once a directory is listed, its entries'
// types come from the listing (a link stays a link), and a second
// listing of it is the first one.
func TestMemoListingAnswersLstat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	c := &osCountFS{}
	m := newMemoFS(c).(memoDirFS)
	if _, err := m.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"plain": 0, "sub": fs.ModeDir, "link": fs.ModeSymlink} {
		fi, err := m.Lstat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Type() != want {
			t.Errorf("%s: %v %v, want type %v", name, fi, err, want)
		}
	}
	m.ReadDir(dir)
	if c.lstats != 0 || c.readdirs != 1 {
		t.Errorf("%d lookups and %d listings reached the filesystem, want 0 and 1", c.lstats, c.readdirs)
	}
	// The guard still follows the listed link.
	g := New("/nonexistent-ws", "/nonexistent-home", WithFS(c)).Memo()
	if f, ok := g.CheckGlob(filepath.Join(dir, "*", "shadow"), action.AccessRead); !ok || f.Decision != verdict.Block {
		t.Errorf("a listed link to /etc must still reach /etc/shadow: %+v %v", f, ok)
	}
}

// TestReleasedMemo: a released memo blocks every path (a holder that
// outlives its decision fails closed), and the next decision's memo
// starts from what the filesystem holds now, whatever memory it reuses.
func TestReleasedMemo(t *testing.T) {
	links := map[string]string{"/home/dev/project/keys": "/home/dev/.ssh"}
	g := New("/home/dev/project", "/home/dev", WithFS(linkFS{links: links}))
	m := g.Memo()
	if f, ok := m.Check("/home/dev/project/keys/notes.txt", action.AccessRead); !ok || f.Decision != verdict.Block {
		t.Fatalf("through the link: %+v %v, want a BLOCK", f, ok)
	}
	m.Release()
	f, ok := m.Check("/home/dev/project/README.md", action.AccessRead)
	if !ok || f.Decision != verdict.Block || f.Rule != RuleBadPath {
		t.Fatalf("a released memo judged a path: %+v %v, want a BLOCK", f, ok)
	}
	if f, ok := m.CheckGlob("/home/dev/project/*.go", action.AccessRead); !ok || f.Decision != verdict.Block {
		t.Fatalf("a released memo judged a glob: %+v %v, want a BLOCK", f, ok)
	}
	delete(links, "/home/dev/project/keys") // the link is now a plain directory
	for i := 0; i < 4; i++ {
		n := g.Memo()
		if f, ok := n.Check("/home/dev/project/keys/notes.txt", action.AccessRead); ok && f.Decision != verdict.Allow {
			t.Fatalf("memo %d still sees the removed link: %+v", i, f)
		}
		n.Release()
	}
	// Release ignores guards Memo did not return.
	g.Release()
	if _, ok := g.Check("/home/dev/project/README.md", action.AccessRead); ok {
		t.Fatal("Release changed a guard that is not a memo")
	}
}
