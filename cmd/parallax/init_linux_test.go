//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// openPTY opens a pseudo-terminal pair: the test types on the master,
// init reads the slave as its stdin.
func openInitPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return m, s
}

// TestInitAsksOnARealTerminal: with a terminal on stdin and no --policy,
// init asks, and the answer typed on the terminal decides.
func TestInitAsksOnARealTerminal(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // init adds the workspace to ~/.parallax/workspaces
	master, slave := openInitPTY(t)
	if !stdinIsTerminal(slave) {
		t.Fatal("a pty slave is not seen as a terminal")
	}
	if _, err := master.WriteString("3\n"); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "ws")
	cmd := newInitCmd()
	cmd.SetIn(slave)
	var out, prompt strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&prompt)
	cmd.SetArgs([]string{root})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt.String(), "3) strict") {
		t.Errorf("prompt: %q", prompt.String())
	}
	if cfg, _ := pxworkspace.LoadConfig(root); cfg.Policy != "strict" {
		t.Errorf("policy: got %q, want strict", cfg.Policy)
	}
}

func TestStdinIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, in := range map[string]io.Reader{"file": f, "pipe": r, "reader": strings.NewReader("")} {
		if stdinIsTerminal(in) {
			t.Errorf("%s: seen as a terminal", name)
		}
	}
}
