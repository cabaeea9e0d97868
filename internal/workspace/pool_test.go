//go:build linux

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
)

// TestPool: a pooled Open reuses the open database and audit chain while
// nothing a fresh Open reads has changed, and opens afresh when
// config.yaml is edited or the database or audit chain is replaced.
func TestPool(t *testing.T) {
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		t.Fatal(err)
	}
	p := NewPool()
	ctx := WithPool(context.Background(), p)
	open := func() *Workspace {
		t.Helper()
		w, err := Open(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w1 := open()
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	w2 := open()
	if w2.DB != w1.DB || w2.Audit != w1.Audit {
		t.Fatalf("unchanged workspace: opened afresh, want the kept one")
	}
	if _, _, err := w2.DB.TaintOf(ctx, "s"); err != nil { // w1.Close did not close it
		t.Fatalf("kept database after a lease's Close: %v", err)
	}
	if _, err := w2.Audit.Append(ctx, audit.Event{Type: audit.ActionEvaluated, Session: "s", ActionType: "read_file",
		Decision: "ALLOW", Stage: "guard", Rule: "test"}); err != nil {
		t.Fatalf("kept audit chain: %v", err)
	}

	cfg := ConfigPath(root)
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), "policy: default", "policy: strict", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	w3 := open()
	if w3.DB == w2.DB || w3.Config.Policy != "strict" {
		t.Errorf("edited config.yaml: policy %q, same database %v; want it read again", w3.Config.Policy, w3.DB == w2.DB)
	}
	if _, _, err := w2.DB.TaintOf(ctx, "s"); err != nil { // replaced, but still leased
		t.Errorf("replaced workspace closed under its user: %v", err)
	}
	for _, w := range []*Workspace{w2, w3} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}

	log := audit.DefaultPath(root)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(log, log+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w4 := open()
	if w4.Audit == w3.Audit {
		t.Errorf("replaced audit chain: kept the old one open")
	}
	if err := w4.Close(); err != nil {
		t.Fatal(err)
	}

	// A settings file recorded by hook install is protected at once.
	settings := filepath.Join(root, "elsewhere", "settings.json")
	if _, err := AddProtected(root, settings); err != nil {
		t.Fatal(err)
	}
	w5 := open()
	if w5.DB == w4.DB || !slices.Contains(w5.protected, settings) {
		t.Errorf("recorded %s: protected %v, same database %v; want protected-paths read again",
			settings, w5.protected, w5.DB == w4.DB)
	}
	if err := w5.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".parallax")); err != nil {
		t.Fatal(err)
	}
}
