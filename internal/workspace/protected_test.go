package workspace

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestProtectedPaths(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if list, err := LoadProtected(root); err != nil || list != nil {
		t.Fatalf("no file: got %v %v, want none", list, err)
	}
	for _, p := range []string{"/srv/team/settings.json", "/srv/team/settings.json", "/home/u/.claude/x.json"} {
		if _, err := AddProtected(root, p); err != nil {
			t.Fatal(err)
		}
	}
	list, err := LoadProtected(root)
	if want := []string{"/srv/team/settings.json", "/home/u/.claude/x.json"}; err != nil || !slices.Equal(list, want) {
		t.Fatalf("got %v %v, want %v", list, err, want)
	}
	ws, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ws.GateConfig("/home/u")
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Protected, list) {
		t.Errorf("gate config: got %v, want %v", cfg.Protected, list)
	}
	for _, bad := range []string{"relative.json", "/a/../b", "/"} {
		if _, err := AddProtected(root, bad); err == nil {
			t.Errorf("AddProtected(%q): want an error", bad)
		}
	}
	// A broken file fails the load and the workspace does not open: the
	// hook then denies every call instead of running without protection.
	if err := os.WriteFile(ProtectedPath(root), []byte("# ok\n/a.json\nnot/absolute\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProtected(root); err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("got %v, want an error naming line 3", err)
	}
	if ws, err := Open(context.Background(), root); err == nil {
		_ = ws.Close()
		t.Errorf("Open with a broken protected-paths file: want an error")
	}
}

// TestRemoveProtected: a path leaves the list, the others stay in their
// order; a path that is not listed, or a missing file, changes nothing.
func TestRemoveProtected(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := RemoveProtected(root, "/srv/a.json"); err != nil || changed {
		t.Fatalf("no file: got %v %v, want no change", changed, err)
	}
	for _, p := range []string{"/srv/a.json", "/srv/b.json", "/srv/c.json"} {
		if _, err := AddProtected(root, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path    string
		changed bool
		want    []string
	}{
		{"/srv/b.json", true, []string{"/srv/a.json", "/srv/c.json"}},
		{"/srv/b.json", false, []string{"/srv/a.json", "/srv/c.json"}},
		{"/srv/x.json", false, []string{"/srv/a.json", "/srv/c.json"}},
		{"/srv/a.json", true, []string{"/srv/c.json"}},
		{"/srv/c.json", true, nil},
	} {
		changed, err := RemoveProtected(root, c.path)
		if err != nil || changed != c.changed {
			t.Fatalf("remove %s: got %v %v, want %v", c.path, changed, err, c.changed)
		}
		if list, err := LoadProtected(root); err != nil || !slices.Equal(list, c.want) {
			t.Fatalf("after removing %s: got %v %v, want %v", c.path, list, err, c.want)
		}
	}
	if err := os.WriteFile(ProtectedPath(root), []byte("not/absolute\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveProtected(root, "/srv/a.json"); err == nil {
		t.Errorf("broken file: want an error")
	}
}
