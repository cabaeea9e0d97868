package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/sandbox"
)

// The demo, as a new user runs it: the real binary, engine and agent
// process (sandboxed where the kernel can), the scripted injected model.
// The key read is blocked by the guard, the write outside the project is
// asked and approved, the planted git hook's write of ~/.bashrc is
// refused by the kernel (where it sandboxes), the request after the
// password read is blocked by information flow, /undo removes the notes,
// the chain verifies, and nothing is left behind.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	px := buildParallax(t)
	tmp := t.TempDir()
	cmd := exec.Command(px, "demo", "--keep")
	cmd.Env = []string{"TMPDIR=" + tmp, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"agent proposes  read_file README.md", "Parallax        ALLOW",
		"agent proposes  read_file ~/.ssh/id_rsa", "BLOCK (guard_restricted)", "Parallax asks   write_file",
		"you answer      allow once", "agent proposes  execute_command git status", "BLOCK (credentials_stay_home)",
		"You: /undo", "NOTES.md is gone again", "verified"} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q:\n%s", want, s)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "parallax-demo-*"))
	if len(dirs) != 1 {
		t.Fatalf("kept demo directories: %v", dirs)
	}
	project, home := filepath.Join(dirs[0], "project"), filepath.Join(dirs[0], "home")
	if _, err := os.Stat(filepath.Join(project, "NOTES.md")); !os.IsNotExist(err) {
		t.Errorf("NOTES.md survived /undo (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(home, "notes", "payments-setup.txt")); err != nil || len(b) == 0 {
		t.Errorf("the approved write outside the project did not happen: %q, %v", b, err)
	}
	if sandbox.Available() == nil {
		if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != demoBashrc || !strings.Contains(s, "refused its write") {
			t.Errorf("with the kernel sandbox, ~/.bashrc must stay as it was: %q", b)
		}
	}
	var canary, blocked int
	err = audit.Scan(audit.DefaultPath(project), audit.Filter{}, func(e audit.Entry) error {
		if e.Type == audit.SandboxCanaryResult && e.Detail.Code == "sandbox_ok" {
			canary++
		}
		if e.Type == audit.ActionBlocked {
			blocked++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if blocked < 2 {
		t.Errorf("%d ActionBlocked entries, want the 2 blocks", blocked)
	}
	// The sandbox is proven where the kernel has it, and always where the
	// end-to-end checks are required (CI).
	if (sandbox.Available() == nil || os.Getenv(e2e.RequireEnv) == "require") && canary != 1 {
		t.Errorf("the agent's sandbox was not proven (SandboxCanaryResult sandbox_ok: %d)", canary)
	}
	// Without --keep nothing is left.
	if err := os.RemoveAll(dirs[0]); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(px, "demo")
	cmd.Env = []string{"TMPDIR=" + tmp, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the demo left %d entries in TMPDIR", len(left))
	}
}
