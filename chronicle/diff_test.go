package chronicle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	c, ws, _ := newTest(t, Options{})
	writeTree(t, ws, spec{
		"notes.txt": "line1\nline2\nline3\n",
		"bin.dat":   "\x00\x01binary",
		"keep.txt":  "same\n",
		"gone.txt":  "bye\n",
		"mode.sh":   "echo\n",
		"d/":        "",
		"d/x":       "x\n",
		"ln":        "->notes.txt",
	}, nil)
	ctx := context.Background()
	snap, err := c.Snapshot(ctx, abs(ws, "notes.txt", "bin.dat", "keep.txt", "gone.txt", "mode.sh", "d", "ln", "new.txt"), "x", "s")
	must(t, err)

	must(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("line1\nLINE2\nline3\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "bin.dat"), []byte("\x00\x02binary"), 0o644))
	must(t, os.Remove(filepath.Join(ws, "gone.txt")))
	must(t, os.Chmod(filepath.Join(ws, "mode.sh"), 0o700))
	must(t, os.WriteFile(filepath.Join(ws, "d/y"), []byte("y\n"), 0o644))
	must(t, os.Remove(filepath.Join(ws, "ln")))
	must(t, os.Symlink("keep.txt", filepath.Join(ws, "ln")))
	must(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("hello\n"), 0o644))

	changes, err := c.Diff(ctx, snap.ID)
	must(t, err)
	want := []Change{
		{Path: "bin.dat", Kind: Modified, Detail: "content"},
		{Path: "d", Kind: Unchanged},
		{Path: "d/x", Kind: Unchanged},
		{Path: "d/y", Kind: Created, Detail: "file", Unified: "--- /dev/null\n+++ b/d/y\n@@ -0,0 +1 @@\n+y\n"},
		{Path: "gone.txt", Kind: Deleted, Detail: "file", Unified: "--- a/gone.txt (#1)\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
		{Path: "keep.txt", Kind: Unchanged},
		{Path: "ln", Kind: Modified, Detail: "link notes.txt → keep.txt"},
		{Path: "mode.sh", Kind: Modified, Detail: "mode 0644 → 0700"},
		{Path: "new.txt", Kind: Created, Detail: "file", Unified: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n"},
		{Path: "notes.txt", Kind: Modified, Detail: "content",
			Unified: "--- a/notes.txt (#1)\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n line1\n-line2\n+LINE2\n line3\n"},
	}
	if len(changes) != len(want) {
		t.Fatalf("got %d changes, want %d:\n%+v", len(changes), len(want), changes)
	}
	for i := range want {
		if changes[i] != want[i] {
			t.Errorf("change %d:\ngot  %+v\nwant %+v", i, changes[i], want[i])
		}
	}
	// Type change, and a same-size rewrite not vouched for by the cache.
	must(t, os.Remove(filepath.Join(ws, "keep.txt")))
	must(t, os.Mkdir(filepath.Join(ws, "keep.txt"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "d/x"), []byte("X\n"), 0o644))
	changes, err = c.Diff(ctx, snap.ID)
	must(t, err)
	got := map[string]Change{}
	for _, ch := range changes {
		got[ch.Path] = ch
	}
	if ch := got["keep.txt"]; ch.Kind != Modified || ch.Detail != "type file → dir" {
		t.Errorf("keep.txt: got %+v", ch)
	}
	if ch := got["d/x"]; ch.Kind != Modified || !strings.Contains(ch.Unified, "-x\n+X\n") {
		t.Errorf("d/x: got %+v", ch)
	}
}
