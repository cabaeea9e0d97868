package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// sandbox explain prints the typed policy the engine would derive, and
// changes nothing on disk: the empty file an exact grant would need is
// named, not made.
func TestSandboxExplainChangesNothing(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	if _, err := pxworkspace.Init(context.Background(), root, pxworkspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := runParallax(t, "", "sandbox", "explain", "--json", "--workspace", root, "touch ~/notes.txt; curl -s https://example.com/x; make")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var p engine.CommandSandboxPolicy
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	notes := filepath.Join(home, "notes.txt")
	if !slices.Equal(p.Spec.WriteFiles, []string{notes}) || !slices.Equal(p.WouldCreate, []string{notes}) {
		t.Errorf("write files %q, would create %q; want exactly %s", p.Spec.WriteFiles, p.WouldCreate, notes)
	}
	if !p.Spec.Network || !slices.Contains(p.Hosts, "example.com") || !p.Spec.Isolate {
		t.Errorf("network %v hosts %q isolate %v", p.Spec.Network, p.Hosts, p.Spec.Isolate)
	}
	if _, err := os.Stat(notes); err == nil {
		t.Error("explain created the file it would grant")
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "go-build")); err == nil {
		t.Error("explain created a cache")
	}
	if _, err := runParallax(t, "", "sandbox", "explain", "--workspace", root); err == nil {
		t.Error("explain without a command: want an error")
	}
}
