package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// A command decided as removing the home gets no grant for it: the
// kernel refuses the removal and the home's files stay. The control
// removes the content of another tree of the home, decided the same way,
// and succeeds: removal grants work, the home's is withheld.
func TestCommandCannotRemoveTheHome(t *testing.T) {
	sandboxOrSkip(t)
	ws, home := t.TempDir(), t.TempDir()
	keep := filepath.Join(home, "notes", "keep.txt")
	writeFile(t, keep, "mine\n")
	hook := newHook(t, ws, home)

	other := filepath.Join(home, "build-cache")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(other, "sub", "x.o"), "obj")
	obj := filepath.Join(other, "sub", "x.o")
	if out, err := run(t, hook, ws, "rm -rf "+filepath.Join(other, "sub"), "rm -f "+obj); err != nil {
		t.Fatalf("control: removing a tree's content in the home was refused (%v: %s), so the test proves nothing", err, out)
	}
	if _, err := os.Stat(obj); !os.IsNotExist(err) {
		t.Fatalf("control: %s is still there (%v)", obj, err)
	}

	out, err := run(t, hook, ws, "rm -rf "+home, "rm -rf "+filepath.Join(home, "notes"))
	if err == nil {
		t.Errorf("removing the home's content succeeded: %s", out)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine\n" {
		t.Errorf("%s: %q, %v; want it kept", keep, b, err)
	}
}
