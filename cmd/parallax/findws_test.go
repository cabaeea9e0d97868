package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
)

// TestCommandsFindWorkspaceAbove: run from a subdirectory of a workspace,
// the workspace commands use it (its state and its audit chain), as the
// hook does, and say which workspace they use.
func TestCommandsFindWorkspaceAbove(t *testing.T) {
	root := initialisedForDoctor(t)
	deep := filepath.Join(root, "src", "deep")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep)
	notice := "using the workspace " + root
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string // in the output besides the notice
	}{
		{"audit", "", []string{"audit"}, "ConfigChanged"},
		{"audit verify", "", []string{"audit", "--verify"}, "ok: " + audit.DefaultPath(root)},
		{"shield evaluate", `{"session":"s1","type":"read_file","payload":{"path":"~/.ssh/id_rsa"}}` + "\n",
			[]string{"shield", "evaluate"}, `"decision":"BLOCK"`},
		{"chronicle", "", []string{"chronicle"}, "no snapshots"},
		{"ifc", "", []string{"ifc", "list"}, ""},
		{"policy list", "", []string{"policy", "list"}, "credential"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runParallax(t, tt.stdin, tt.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(out, notice) || !strings.Contains(out, tt.want) {
				t.Errorf("got:\n%s\nwant %q and %q", out, notice, tt.want)
			}
		})
	}
	// The evaluation above joined the workspace's chain.
	n := 0
	_ = audit.Scan(audit.DefaultPath(root), audit.Filter{Session: "s1"}, func(audit.Entry) error { n++; return nil })
	if n == 0 {
		t.Error("shield evaluate from a subdirectory left no entry in the workspace's chain")
	}
	out, stderr, err := runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "")
	if err != nil || !strings.Contains(out, "workspace "+root) || !strings.Contains(stderr, notice) {
		t.Errorf("doctor: %v\n%s%s", err, out, stderr)
	}

	// --workspace and the workspace itself: no notice.
	t.Chdir(root)
	if out, err := runParallax(t, "", "audit"); err != nil || strings.Contains(out, notice) {
		t.Errorf("in the workspace: %v\n%s", err, out)
	}
}

// TestCommandsNoWorkspaceAbove: without a workspace above, the current
// directory is used, as before.
func TestCommandsNoWorkspaceAbove(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	out, err := runParallax(t, "", "audit")
	if err != nil || !strings.Contains(out, "no audit log at "+audit.DefaultPath(dir)) || strings.Contains(out, "using the workspace") {
		t.Errorf("got %v\n%s", err, out)
	}
}
