package engine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools/shell"
	"github.com/parallax/parallax/verdict"
)

// The real executors behind the real pipeline: files act, shell runs,
// a key file is never read, and the sandbox hook is called per command.
func TestToolExecutorsEndToEnd(t *testing.T) {
	var wrapped []string
	var sandbox SandboxHook = func(act *action.Action) (func(*exec.Cmd) error, func() []string, error) {
		cmd := act.Payload.(*action.ExecuteCommandPayload).Command
		if strings.Contains(cmd, "nosandbox") {
			return nil, nil, errors.New("the kernel refused")
		}
		wrapped = append(wrapped, cmd)
		return func(c *exec.Cmd) error { c.Env = append(c.Env, "PX_WRAPPED=yes"); return nil }, nil, nil
	}
	e := newEnv(t, envOptions{wrap: func(c Config) Config {
		c.Executors = ToolExecutors(ToolsConfig{Shell: shell.Runner{Workspace: c.Workspace}, CommandSandbox: sandbox})
		return c
	}})
	f := filepath.Join(e.root, "notes.txt")
	if out := e.handle("s1", "write_file", map[string]any{"path": f, "content": "hello\n"}); out.Verdict.Decision != verdict.Allow || out.Result.IsError {
		t.Fatalf("write: %+v", out)
	}
	if out := e.handle("s1", "read_file", map[string]any{"path": f}); out.Result.IsError || !strings.Contains(out.Result.Output, "hello") {
		t.Fatalf("read: %+v", out)
	}
	if out := e.handle("s1", "edit_file", map[string]any{"path": f, "old": "hello", "new": "bye"}); out.Result.IsError {
		t.Fatalf("edit: %+v", out)
	}
	if b, _ := os.ReadFile(f); string(b) != "bye\n" {
		t.Fatalf("file holds %q", b)
	}
	out := e.handle("s1", "execute_command", map[string]any{"command": "echo $PX_WRAPPED > wrapped.txt; exit 3"})
	if !out.Executed || !strings.Contains(out.Result.Output, "exit status 3") {
		t.Fatalf("command: %+v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "wrapped.txt")); string(b) != "yes\n" || len(wrapped) != 1 {
		t.Fatalf("the command did not run through its sandbox wrapper: %q, %q", b, wrapped)
	}
	out = e.handle("s1", "execute_command", map[string]any{"command": "echo nosandbox > x.txt"})
	if !out.Result.IsError || !strings.Contains(out.Result.Output, "sandbox") {
		t.Fatalf("a command without its sandbox: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(e.root, "x.txt")); !os.IsNotExist(err) {
		t.Fatal("a command whose sandbox failed ran anyway")
	}
	key := filepath.Join(e.home, ".ssh", "id_rsa")
	if out := e.handle("s1", "read_file", map[string]any{"path": key}); out.Verdict.Decision != verdict.Block || out.Executed {
		t.Fatalf("key read: %+v", out)
	}
	e.entries() // the chain verifies
}

// The plan taken when the engine prepares a files call is checked when it
// runs: a file swapped for a symlink between the two is refused.
func TestFilesPlanRefusesASwap(t *testing.T) {
	root, secret := t.TempDir(), filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(root, "a.txt")
	if err := os.WriteFile(f, []byte("public"), 0o600); err != nil {
		t.Fatal(err)
	}
	ex := ToolExecutors(ToolsConfig{})[action.ReadFile]
	act := &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}
	prep := ex.(Preparer)
	plan, err := prep.Prepare(t.Context(), act)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, f); err != nil {
		t.Fatal(err)
	}
	res, err := ex.Execute(t.Context(), plan)
	if err == nil || strings.Contains(res.Output, "s3cret") || !strings.Contains(res.Output, "path_changed") {
		t.Fatalf("swapped file read: %+v, %v", res, err)
	}
	// Executing what was never prepared is refused.
	if _, err := ex.Execute(t.Context(), &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}); err == nil {
		t.Fatal("an unprepared call ran")
	}
}
