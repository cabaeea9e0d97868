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
