package guard

import (
	"io/fs"
	"testing"

	"github.com/parallax/parallax/action"
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
