package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.yaml")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v", st.Mode().Perm())
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "two" || st.Mode().Perm() != 0o640 {
		t.Fatalf("got %q mode %v, want two 0640", b, st.Mode().Perm())
	}
	// A symlink is replaced, its target untouched.
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("target written through the link: %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 {
		t.Fatal("link not replaced")
	}
	// A failure leaves nothing behind: the path is a directory.
	d := filepath.Join(dir, "adir")
	if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(d, []byte("x"), 0o600); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "sub" && e.Name() != "target" && e.Name() != "link" && e.Name() != "adir" {
			t.Fatalf("left behind %s", e.Name())
		}
	}
}
