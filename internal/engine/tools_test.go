package engine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/egress"
	"github.com/parallax/parallax/internal/tools/shell"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// The real executors behind the real pipeline: files act, shell runs,
// a key file is never read, and the sandbox hook is called per command.
func TestToolExecutorsEndToEnd(t *testing.T) {
	var wrapped []string
	var sandbox SandboxHook = func(act *action.Action) (func(*exec.Cmd) error, func() SandboxEnd, error) {
		cmd := act.Payload.(*action.ExecuteCommandPayload).Command
		if strings.Contains(cmd, "nosandbox") {
			return nil, nil, errors.New("the kernel refused")
		}
		wrapped = append(wrapped, cmd)
		return func(c *exec.Cmd) error { c.Env = append(c.Env, "PX_WRAPPED=yes"); return nil }, nil, nil
	}
	e := newEnv(t, envOptions{wrap: func(c Config) Config {
		c.Executors = ToolExecutors(ToolsConfig{Guard: c.Gate.(*shield.Gate).Guard(), Shell: shell.Runner{Workspace: c.Workspace},
			CommandSandbox: sandbox})
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
	res, err := ex.Execute(t.Context(), Call{Action: act, Plan: plan})
	if err == nil || strings.Contains(res.Output, "s3cret") || !strings.Contains(res.Output, "path_changed") {
		t.Fatalf("swapped file read: %+v, %v", res, err)
	}
	// Executing what was never prepared is refused.
	if _, err := ex.Execute(t.Context(), Call{Action: &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}}); err == nil {
		t.Fatal("an unprepared call ran")
	}
}

// A search or a recursive listing of the workspace through the pipeline,
// with the executors Open builds over the gate's guard, never returns
// the engine's API token, its canary or a .env value: every entry of the
// walk is judged as a read, and the answer counts what was withheld.
func TestSearchFilesCannotReturnTheAPITokenOrEnvValues(t *testing.T) {
	e := newEnv(t, envOptions{tools: &ToolsConfig{}})
	const envValue = "envvalue-ocelot-marmalade"
	writeFile(t, filepath.Join(e.root, ".env"), "API_KEY="+envValue+"\n")
	writeFile(t, filepath.Join(e.root, "src", ".env"), "DB_PASSWORD="+envValue+"-nested\n")
	writeFile(t, filepath.Join(e.root, "src", "main.go"), "package main\n// key = value\n")
	var forbidden []string
	for _, name := range []string{"api.token", "canary.token"} {
		b, err := os.ReadFile(filepath.Join(e.root, ".parallax", name))
		if err != nil || len(strings.TrimSpace(string(b))) < 32 {
			t.Fatalf("the workspace's %s: %q, %v", name, b, err)
		}
		forbidden = append(forbidden, strings.TrimSpace(string(b)))
	}
	forbidden = append(forbidden, envValue, ".parallax", ".env")
	calls := []struct {
		typ     string
		payload map[string]any
		found   string // an ordinary result the walk must still return
	}{
		{"search_files", map[string]any{"path": e.root, "pattern": forbidden[0]}, "no matches"},
		{"search_files", map[string]any{"path": e.root, "pattern": forbidden[1]}, "no matches"},
		{"search_files", map[string]any{"path": e.root, "pattern": envValue}, "no matches"},
		{"search_files", map[string]any{"path": e.root, "pattern": "="}, "src/main.go:2: // key = value"},
		{"search_files", map[string]any{"path": e.root, "pattern": "[0-9a-f]{32}"}, "no matches"},
		{"list_directory", map[string]any{"path": e.root, "recursive": true}, "src/main.go"},
	}
	for _, c := range calls {
		out := e.handle("s1", c.typ, c.payload)
		if out.Verdict.Decision != verdict.Allow || !out.Executed || out.Result.IsError {
			t.Fatalf("%s %v: %+v", c.typ, c.payload, out)
		}
		for _, s := range forbidden {
			if strings.Contains(out.Result.Output, s) {
				t.Fatalf("%s %v returned %q:\n%s", c.typ, c.payload, s, out.Result.Output)
			}
		}
		if !strings.Contains(out.Result.Output, c.found) || !strings.Contains(out.Result.Output, "entries withheld (restricted or sealed)]") {
			t.Fatalf("%s %v: want %q and the withheld count, got\n%s", c.typ, c.payload, c.found, out.Result.Output)
		}
	}
	e.entries() // the chain verifies
}

// TestSandboxRefusalSaysItIsTheSandbox: a sandboxed command that failed
// with what a refusal prints gets a note saying Parallax's sandbox may
// have refused it and naming what its verdict allowed (the files outside
// the workspace, the hosts, or no network); a connection the egress
// proxy refused is named as refused; a success or an unrelated failure
// gets none. The lists are bounded.
func TestSandboxRefusalSaysItIsTheSandbox(t *testing.T) {
	offline := SandboxEnd{Grants: Grants{WriteFiles: []string{"/home/u/notes.txt"}}}
	online := SandboxEnd{Grants: Grants{Network: true, Hosts: []string{"api.example.com"}, Registries: []string{"proxy.golang.org"}}}
	refused := online
	refused.Conns = []egress.Conn{{Host: "api.example.com", Port: 443, Decision: egress.Allowed, Reason: egress.ReasonVerdictHost},
		{Host: "evil.example", Port: 443, Decision: egress.Refused, Reason: egress.ReasonHostNotAllowed},
		{Host: "down.example", Port: 80, Decision: egress.Refused, Reason: egress.ReasonDial}}
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("/home/u/f%02d", i))
	}
	for _, tc := range []struct {
		res       Result
		end       SandboxEnd
		want, not []string
	}{
		{Result{Output: "sh: 1: cannot create /home/u/.bashrc: Permission denied\n", ExitCode: 2}, offline,
			[]string{"Parallax ran this command in its sandbox", "/home/u/notes.txt", "no network"}, []string{"egress proxy refused"}},
		{Result{Output: "curl: (56) CONNECT tunnel failed, response 403\n", ExitCode: 56}, refused,
			[]string{"Parallax's egress proxy refused evil.example:443 (host_not_allowed)", "api.example.com", "proxy.golang.org"},
			[]string{"down.example", "no network"}},
		{Result{Output: "curl: (6) Could not resolve host: x.example\n", ExitCode: 6}, offline,
			[]string{"no network", "/home/u/notes.txt"}, nil},
		{Result{Output: "touch: cannot touch '/etc/x': Read-only file system\n", ExitCode: 1}, SandboxEnd{Grants: Grants{WriteFiles: many}},
			[]string{"/home/u/f00", "/home/u/f07", "and 42 more"}, []string{"/home/u/f08"}},
		{Result{Output: "FAIL example.com/m 0.01s\n", ExitCode: 1}, offline, nil, nil},
		{Result{Output: "Permission denied (publickey).\n", ExitCode: 0}, offline, nil, nil},
	} {
		got := sandboxHint(&tc.res, tc.end)
		if (got != "") != (tc.want != nil) {
			t.Errorf("%q (exit %d): hint %q, want one: %v", tc.res.Output, tc.res.ExitCode, got, tc.want != nil)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: hint %q lacks %q", tc.res.Output, got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%q: hint %q holds %q", tc.res.Output, got, n)
			}
		}
		if len(got) > 1500 {
			t.Errorf("%q: hint of %d bytes", tc.res.Output, len(got))
		}
	}
}
