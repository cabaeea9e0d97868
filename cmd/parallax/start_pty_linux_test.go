package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/e2e/pty"
	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/sandbox"
)

// ptyWait bounds the whole terminal session of the test; generous, the
// machine may be busy. It is a deadline to fail by, never a measure.
const ptyWait = 4 * time.Minute

// TestStartForegroundOnTerminal runs `parallax start` as a user does: on
// a real pseudo-terminal (controlling terminal of its own session, a
// window size set), the engine and its agent behind the bubbletea chat.
// It types a message whose scripted answer reads the SSH key (BLOCKed by
// the guard) and then replies, asks /status for the sandbox state, tries
// to turn the sandbox off from the session (refused), opens an
// off-the-record session, and leaves with /quit: the process exits 0,
// the engine is gone (socket removed, lock free) and the audit chain,
// with the BLOCK in it, verifies.
func TestStartForegroundOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	probe, err := pty.Open(24, 80)
	e2e.Need(t, err, "no pseudo-terminal here")
	probe.Close()
	bin := buildParallax(t)
	sandboxErr := sandbox.Available()
	t.Logf("kernel sandbox available: %v", sandboxErr)
	tests := []struct {
		name      string
		sandboxed bool
	}{
		{"agent sandbox on where the kernel has it", sandboxErr == nil},
		{"agent.sandbox off", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { startOnTerminal(t, bin, tt.sandboxed) })
	}
}

// startOnTerminal is one foreground session of TestStartForegroundOnTerminal.
func startOnTerminal(t *testing.T, bin string, sandboxed bool) {
	term, err := pty.Open(40, 220)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	root, home := ptyWorkspace(t, sandboxed)
	cfgBefore, err := os.ReadFile(pxworkspace.ConfigPath(root))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), ptyWait)
	defer cancel()
	cmd := exec.Command(bin, "start") //nolint:gosec // built by the test
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8"}
	if err := term.Start(cmd); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	quit := false
	defer func() {
		if !quit { // a failure left it running: end its session's group
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()

	s := &ptyChat{t: t, ctx: ctx, term: term}
	s.converse(sandboxed)
	if cfg, err := os.ReadFile(pxworkspace.ConfigPath(root)); err != nil || string(cfg) != string(cfgBefore) {
		t.Errorf("config.yaml after the refused /config set: %v\n%s\nwant it unchanged:\n%s", err, cfg, cfgBefore)
	}
	s.typ("/quit\r")
	select {
	case err = <-exited:
		quit = true
	case <-ctx.Done():
		t.Fatalf("parallax start still runs after /quit: %v\nscreen:\n%s", ctx.Err(), pty.Tail(term.Text(0), 40))
	}
	if err != nil {
		t.Fatalf("parallax start after /quit: %v, want exit status 0\nscreen:\n%s", err, pty.Tail(term.Text(0), 40))
	}
	if err := term.Closed(ctx); err != nil {
		t.Errorf("after /quit something still holds the terminal (the engine or its agent): %v", err)
	}
	if _, err := os.Stat(engine.SocketPath(root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("engine socket after /quit: %v, want it removed", err)
	}
	if pid, err := engine.EnginePid(root); pid != 0 || err != nil {
		t.Errorf("engine lock after /quit: held by pid %d (%v), want it free", pid, err)
	}
	checkPtyAudit(t, root, sandboxed)
}

// ptyChat types on the chat's terminal and waits for its screen.
type ptyChat struct {
	t    *testing.T
	ctx  context.Context
	term *pty.Terminal
}

// wait waits for want drawn after the mark from.
func (s *ptyChat) wait(from int, want string) {
	s.t.Helper()
	if _, err := s.term.WaitFor(s.ctx, from, want); err != nil {
		s.t.Fatal(err)
	}
}

// typ types keys and returns the mark of the screen before them.
func (s *ptyChat) typ(keys string) int {
	s.t.Helper()
	mark := s.term.Mark()
	if err := s.term.Type(keys); err != nil {
		s.t.Fatal(err)
	}
	return mark
}

// converse is the user's part: a message, /status, a refused /config
// set, /otr; each waits for what it must draw.
func (s *ptyChat) converse(sandboxed bool) {
	s.t.Helper()
	s.wait(0, "message, or /help")

	mark := s.typ("please read my ssh key\r")
	s.wait(mark, "you: please read my ssh key")
	s.wait(mark, "read_file ~/.ssh/id_rsa")
	s.wait(mark, "✗ BLOCK guard_restricted")
	s.wait(mark, "The key stays private.")

	wantSandbox := "sandbox    enforced"
	if !sandboxed {
		wantSandbox = "sandbox    OFF"
	}
	mark = s.typ("/status\r")
	s.wait(mark, "engine     running, pid ")
	s.wait(mark, wantSandbox)
	s.wait(mark, "0 allowed, 1 blocked")

	mark = s.typ("/config set agent.sandbox off\r")
	s.wait(mark, "config set agent.sandbox: a security setting cannot be changed from inside a session")

	mark = s.typ("/otr\r")
	s.wait(mark, "now in OFF-THE-RECORD session ")
	s.wait(mark, " OFF THE RECORD  session ")
}

// ptyWorkspace is an initialised workspace whose chat model is scripted
// (read the SSH key, then a reply that needs the gate's refusal), a home
// with an SSH key, and the agent's sandbox on where the kernel has one.
func ptyWorkspace(t *testing.T, sandboxed bool) (root, home string) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "script.yaml")
	turns := `turns:
  - text: "Looking."
    tool_calls: [{name: read_file, input: {path: "~/.ssh/id_rsa"}}]
  - expect: {tool_result_contains: "by Parallax (guard_restricted)"}
    text: "The key stays private."
`
	if err := os.WriteFile(script, []byte(turns), 0o600); err != nil {
		t.Fatal(err)
	}
	agent := "  sandbox: off\n"
	if sandboxed {
		agent = ""
	}
	return agentWorkspace(t, "models:\n    - {name: demo, provider: scripted, model: scripted-agent, script: "+script+"}\n  roles: {chat: demo}", agent)
}

// checkPtyAudit verifies the workspace's audit chain and looks in it for
// the guard's BLOCK and the agent's sandbox report.
func checkPtyAudit(t *testing.T, root string, sandboxed bool) {
	t.Helper()
	if _, err := pxworkspace.VerifyChain(root); err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	var blocked int
	var sandboxCodes []string
	err := audit.Scan(audit.DefaultPath(root), audit.Filter{}, func(e audit.Entry) error {
		switch {
		case e.Type == audit.ActionBlocked && e.Rule == "guard_restricted":
			blocked++
		case e.Type == audit.SandboxCanaryResult:
			sandboxCodes = append(sandboxCodes, e.Detail.Code)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if blocked != 1 {
		t.Errorf("ActionBlocked guard_restricted entries: got %d, want 1", blocked)
	}
	want := "sandbox_off"
	if sandboxed {
		want = "sandbox_ok"
	}
	if len(sandboxCodes) == 0 || sandboxCodes[len(sandboxCodes)-1] != want {
		t.Errorf("SandboxCanaryResult codes: got %v, want the last %s", sandboxCodes, want)
	}
}
