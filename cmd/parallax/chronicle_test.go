package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
)

// runChronicle runs `parallax chronicle ARGS` in-process with stdin.
func runChronicle(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	return runParallax(t, stdin, append([]string{"chronicle"}, args...)...)
}

// chronicleWorkspace makes a workspace with one snapshot of notes.txt
// (then changed) and one of new.txt (then created).
func chronicleWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := chronicle.Open(context.Background(), ws, chronicle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Snapshot(context.Background(), []string{notes}, "write_file notes.txt", "sess-1"); err != nil {
		t.Fatal(err)
	}
	newFile := filepath.Join(ws, "new.txt")
	if _, err := c.Snapshot(context.Background(), []string{newFile}, "write_file new.txt", "sess-1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("one\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newFile, []byte("fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestChronicleListAndDiff(t *testing.T) {
	ws := chronicleWorkspace(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"list", []string{"--workspace", ws}, []string{"ID", "REASON", "1 ", "write_file notes.txt", "sess-1", "2 ", "new.txt"}},
		{"diff", []string{"diff", "1", "--workspace", ws},
			[]string{"M notes.txt (content)", "-two\n+2\n", "since #1: 1 modified, 0 created, 0 deleted, 0 unchanged"}},
		{"diff hash id", []string{"diff", "#2", "--workspace", ws}, []string{"A new.txt (file)", "+fresh"}},
		{"verify", []string{"verify", "--deep", "--workspace", ws}, []string{"ok: 2 snapshot(s), chain intact"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runChronicle(t, "", tc.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestChronicleRollback(t *testing.T) {
	ws := chronicleWorkspace(t)
	notes := filepath.Join(ws, "notes.txt")
	read := func() string {
		b, err := os.ReadFile(notes)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Declined, and no answer at all: nothing changes.
	for _, stdin := range []string{"n\n", ""} {
		out, err := runChronicle(t, stdin, "rollback", "1", "--workspace", ws)
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("stdin %q: got %v, want cancelled\n%s", stdin, err, out)
		}
		if !strings.Contains(out, "Roll back 1 path(s) to #1? [y/N]") {
			t.Errorf("no prompt:\n%s", out)
		}
		if read() != "one\n2\n" {
			t.Fatal("declined rollback changed the file")
		}
	}
	out, err := runChronicle(t, "y\n", "rollback", "1", "--workspace", ws)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if read() != "one\ntwo\n" || !strings.Contains(out, "undo with: parallax chronicle rollback 3") {
		t.Errorf("got %q\n%s", read(), out)
	}
	out, err = runChronicle(t, "", "rollback", "--yes", "3", "--workspace", ws)
	if err != nil || read() != "one\n2\n" {
		t.Fatalf("undo: %v %q\n%s", err, read(), out)
	}
	// Snapshot 2 recorded new.txt as absent: rolling back removes it.
	if _, err := runChronicle(t, "", "rollback", "-y", "2", "--workspace", ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt survived the rollback: %v", err)
	}
	out, err = runChronicle(t, "", "rollback", "2", "--workspace", ws)
	if err != nil || !strings.Contains(out, "nothing to roll back") {
		t.Errorf("got %v\n%s", err, out)
	}
}

func TestChronicleErrors(t *testing.T) {
	ws := chronicleWorkspace(t)
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown id", []string{"diff", "42", "--workspace", ws}, "no snapshot #42"},
		{"unknown id rollback", []string{"rollback", "-y", "42", "--workspace", ws}, "no snapshot #42"},
		{"bad id", []string{"diff", "abc", "--workspace", ws}, `snapshot id "abc"`},
		{"zero id", []string{"diff", "0", "--workspace", ws}, "positive number"},
		{"no chronicle", []string{"--workspace", empty}, "no chronicle in"},
		{"prune without limits", []string{"prune", "--workspace", ws}, "give --keep"},
		{"prune bad age", []string{"prune", "--max-age", "soon", "--workspace", ws}, `"soon"`},
		{"missing id", []string{"diff", "--workspace", ws}, "accepts 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runChronicle(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q\n%s", err, tc.want, out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(empty, ".parallax")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("listing an empty workspace created .parallax: %v", err)
	}
}

func TestChroniclePrune(t *testing.T) {
	ws := chronicleWorkspace(t)
	out, err := runChronicle(t, "", "prune", "--keep", "1", "--workspace", ws)
	if err != nil || !strings.Contains(out, "deleted 1 snapshot(s) and 1 stored file(s)") {
		t.Fatalf("got %v\n%s", err, out)
	}
	out, err = runChronicle(t, "", "--workspace", ws)
	if err != nil || strings.Contains(out, "notes.txt") || !strings.Contains(out, "new.txt") {
		t.Errorf("after prune: %v\n%s", err, out)
	}
	if _, err := runChronicle(t, "", "verify", "--workspace", ws); err != nil {
		t.Error(err)
	}
	out, err = runChronicle(t, "", "prune", "--max-age", "30d", "--workspace", ws)
	if err != nil || !strings.Contains(out, "deleted 0 snapshot(s)") {
		t.Errorf("got %v\n%s", err, out)
	}
}

func TestChronicleHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"rollback", "--help"}, {"prune", "--help"}} {
		out, err := runChronicle(t, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"Usage:", "--workspace"} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: help lacks %q", args, w)
			}
		}
	}
}

// TestChronicleRollbackAudited: each rollback, done or failed, is a
// TransactionRollback entry in the chain, which still verifies; a chain
// that cannot record it stops the rollback before anything changes.
func TestChronicleRollbackAudited(t *testing.T) {
	ws := chronicleWorkspace(t)
	notes := filepath.Join(ws, "notes.txt")
	if out, err := runChronicle(t, "", "rollback", "-y", "1", "--workspace", ws); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := runChronicle(t, "", "rollback", "-y", "42", "--workspace", ws); err == nil {
		t.Fatal("rollback to a missing snapshot succeeded")
	}
	var got []string
	err := audit.Scan(audit.DefaultPath(ws), audit.Filter{}, func(e audit.Entry) error {
		if e.Type == audit.TransactionRollback {
			got = append(got, e.Detail.Code+" "+e.Detail.Ref)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "chronicle_rollback snapshot:1,chronicle_rollback_failed snapshot:42"; strings.Join(got, ",") != want {
		t.Errorf("rollback entries: got %q, want %q", strings.Join(got, ","), want)
	}
	if out, err := runParallax(t, "", "audit", "--verify", "--workspace", ws); err != nil {
		t.Fatalf("chain does not verify: %v\n%s", err, out)
	}

	// A chain that cannot be written: nothing is rolled back.
	if err := os.WriteFile(notes, []byte("changed again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(audit.DefaultPath(ws), 5); err != nil { // a torn chain refuses appends
		t.Fatal(err)
	}
	out, err := runChronicle(t, "", "rollback", "-y", "1", "--workspace", ws)
	if err == nil || !strings.Contains(err.Error(), "nothing was rolled back") {
		t.Fatalf("got %v, want a refusal\n%s", err, out)
	}
	if b, _ := os.ReadFile(notes); string(b) != "changed again\n" {
		t.Errorf("notes.txt changed to %q although the rollback could not be audited", b)
	}
}
