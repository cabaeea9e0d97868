package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/tools/shell"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/verdict"
)

// sandboxOrSkip skips where the command sandbox cannot be built: no
// Landlock or seccomp, or no user namespaces to hide .parallax with.
func sandboxOrSkip(t *testing.T) {
	t.Helper()
	e2e.Need(t, sandbox.Available(), "no command sandbox here")
}

func newHook(t *testing.T, ws, home string) SandboxHook {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: ws, Home: home, Self: self,
		Unreadable: guard.New(ws, home).Unreadable(), TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return hook
}

// run runs script under the sandbox derived from decided (or plainly,
// when decided is ""), and returns its output and error.
func run(t *testing.T, hook SandboxHook, ws, decided, script string) (string, error) {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", script)
	c.Dir, c.Env = ws, os.Environ()
	if decided != "" {
		act := &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: decided}}
		wrap, done, err := hook(act)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		if err := wrap(c); err != nil {
			t.Fatal(err)
		}
	}
	out, err := c.CombinedOutput()
	return string(out), err
}

// What the gate believes a command does is what the kernel lets it do: a
// command decided as a workspace write cannot write the home, read a key
// or open a socket; the same scripts run unsandboxed succeed (the
// control that proves each one could).
func TestCommandSandboxHoldsTheVerdict(t *testing.T) {
	sandboxOrSkip(t)
	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), testKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	hook := newHook(t, ws, home)
	decided := "echo built > out.txt"
	escapes := map[string]string{
		"write the home":  "echo x > " + filepath.Join(home, "planted"),
		"read a key":      "cat " + filepath.Join(home, ".ssh", "id_rsa"),
		"open a socket":   fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ln.Addr().(*net.TCPAddr).Port),
		"write /etc-like": "echo x > " + filepath.Join(t.TempDir(), "other"),
	}
	for name, script := range escapes {
		t.Run(name, func(t *testing.T) {
			if out, err := run(t, hook, ws, "", "bash -c '"+script+"'"); err != nil {
				t.Fatalf("control: unsandboxed, it fails too (%v: %s), so the test proves nothing", err, out)
			}
			out, err := run(t, hook, ws, decided, "bash -c '"+script+"'")
			if err == nil {
				t.Fatalf("sandboxed, it succeeded: %s", out)
			}
			if strings.Contains(out, "PRIVATE KEY") {
				t.Fatal("key material read")
			}
		})
	}
	if out, err := run(t, hook, ws, decided, decided); err != nil {
		t.Fatalf("the decided command fails in its sandbox: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "built\n" {
		t.Fatalf("out.txt holds %q", b)
	}
	// A command whose analysis includes the network still reaches no
	// loopback service: it has a network namespace of its own, and only
	// the egress proxy (none here) leads out of it.
	netcmd := fmt.Sprintf("curl -s http://127.0.0.1:%d/", ln.Addr().(*net.TCPAddr).Port)
	script := fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d'", ln.Addr().(*net.TCPAddr).Port)
	if out, err := run(t, hook, ws, "", script); err != nil {
		t.Fatalf("control: unsandboxed the listener is unreachable too (%v: %s)", err, out)
	}
	if out, err := run(t, hook, ws, netcmd, script); err == nil {
		t.Fatalf("a networked command reached a loopback service of the host: %s", out)
	}
}

// A new file decided in a directory that holds the workspace (the home,
// for a workspace under it: what a user approves as "write ~/notes.txt")
// is granted as that one file: the command writes it, and still no other
// file of the home, nor a directory in it.
func TestCommandSandboxGrantsANewFileInTheHome(t *testing.T) {
	sandboxOrSkip(t)
	home := t.TempDir()
	ws := filepath.Join(home, "src", "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	hook := newHook(t, ws, home)
	notes := filepath.Join(home, "notes.txt")
	decided := "echo approved > " + notes
	if out, err := run(t, hook, ws, decided, decided); err != nil {
		t.Fatalf("the decided write of a new file in the home fails in its sandbox: %v: %s", err, out)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "approved\n" {
		t.Fatalf("%s: %q, %v; want the approved line", notes, b, err)
	}
	for name, script := range map[string]string{
		"another file of the home": "echo x > " + filepath.Join(home, "other.txt"),
		"a directory in the home":  "mkdir " + filepath.Join(home, "newdir"),
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := run(t, hook, ws, decided, script); err == nil {
				t.Fatalf("sandboxed by the grant of %s, it succeeded: %s", notes, out)
			}
		})
	}
}

// Through the whole pipeline: the command runs in its sandbox and its
// private temp directory is gone afterwards.
func TestPipelineRunsCommandsSandboxed(t *testing.T) {
	sandboxOrSkip(t)
	tmpRoot := t.TempDir()
	e := newEnv(t, envOptions{wrap: func(c Config) Config {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: c.Workspace, Home: c.Home, Self: self,
			Unreadable: guard.New(c.Workspace, c.Home).Unreadable(), TempRoot: tmpRoot})
		if err != nil {
			t.Fatal(err)
		}
		c.Executors = ToolExecutors(ToolsConfig{Shell: shell.Runner{Workspace: c.Workspace}, CommandSandbox: hook})
		return c
	}})
	out := e.handle("s1", "execute_command", map[string]any{"command": "printf %s \"$TMPDIR\" > where.txt"})
	if out.Verdict.Decision != verdict.Allow || out.Result.IsError {
		t.Fatalf("%+v", out)
	}
	// The workspace lies under /tmp here: /tmp holds it again, so the
	// command's own temp directory is the writable one inside /tmp.
	where, _ := os.ReadFile(filepath.Join(e.root, "where.txt"))
	if string(where) != "/tmp/.parallax-tmp" {
		t.Fatalf("TMPDIR was %q", where)
	}
	if ents, _ := os.ReadDir(tmpRoot); len(ents) != 0 {
		t.Fatalf("private temp directories left: %d", len(ents))
	}
	e.entries()
}

// The workspace's .parallax is hidden from every command: it cannot be
// listed, read or written (the same scripts unsandboxed can), while the
// workspace around it stays writable, its top level included.
func TestCommandSandboxHidesWorkspaceState(t *testing.T) {
	sandboxOrSkip(t)
	ws, home := t.TempDir(), t.TempDir()
	state := filepath.Join(ws, ".parallax")
	writeFile(t, filepath.Join(state, "audit.jsonl"), "{\"secret\":\"chain\"}\n")
	hook := newHook(t, ws, home)
	cfg := CommandSandboxConfig{Workspace: ws, Home: home, Unreadable: guard.New(ws, home).Unreadable()}
	plan, err := cfg.plan("ls", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.spec.Hide) == 0 || plan.spec.Hide[0] != state {
		t.Fatalf("hide %q, want %s first", plan.spec.Hide, state)
	}
	decided := "echo built > out.txt"
	refused := []struct{ name, script string }{ // in an order the controls can run in
		{"list", "ls -A .parallax | grep -q audit"},
		{"read", "grep -q chain .parallax/audit.jsonl"},
		{"write", "echo x >> .parallax/audit.jsonl"},
		{"create", "echo x > .parallax/tokens"},
		{"remove", "rm -r .parallax/audit.jsonl"}, // rm -f of what looks absent succeeds; the file is checked below
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			out, err := run(t, hook, ws, decided, r.script)
			if err == nil {
				t.Fatalf("sandboxed, it succeeded: %s", out)
			}
			if strings.Contains(out, "chain") {
				t.Fatal("the audit chain was read")
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(state, "audit.jsonl")); err != nil || string(b) != "{\"secret\":\"chain\"}\n" {
		t.Fatalf("audit.jsonl after the sandboxed runs: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(state, "tokens")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a sandboxed command created .parallax/tokens (%v)", err)
	}
	// New files and directories at the workspace's top level work.
	if out, err := run(t, hook, ws, decided, "echo m > go.mod && mkdir -p .git && echo h > .git/HEAD && cat go.mod .git/HEAD"); err != nil || out != "m\nh\n" {
		t.Fatalf("top-level writes in the sandbox: %v: %q", err, out)
	}
	// The controls: unsandboxed, each refused script succeeds.
	for _, r := range refused {
		if out, err := run(t, hook, ws, "", r.script); err != nil {
			t.Errorf("control %s: unsandboxed it fails too (%v: %s)", r.name, err, out)
		}
	}
}

// Where the hide probe fails (here: a self that is not the wrapper), no
// sandbox is built: the engine does not start with the sandbox on, and
// the reason names the sysctls to check.
func TestCommandSandboxRefusedWithoutHiding(t *testing.T) {
	e2e.Need(t, sandbox.Support().Usable(), "no kernel sandbox here")
	ws, home := t.TempDir(), t.TempDir()
	hook, err := NewCommandSandbox(CommandSandboxConfig{Workspace: ws, Home: home, Self: "/bin/false",
		Unreadable: guard.New(ws, home).Unreadable(), TempRoot: t.TempDir()})
	if hook != nil || !errors.Is(err, sandbox.ErrNoUserns) || !strings.Contains(err.Error(), "user.max_user_namespaces") {
		t.Fatalf("hook %v, err %v; want no hook and ErrNoUserns naming the sysctls", hook != nil, err)
	}
}

// TestMaskedSecretsStayOutOfGit: an untracked secret file that no
// .gitignore names is masked in a command's sandbox; git add -A succeeds
// and leaves it out (it would fail on the mask: Permission denied), and
// the user's own global excludes still apply.
func TestMaskedSecretsStayOutOfGit(t *testing.T) {
	sandboxOrSkip(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.log\n")
	gitEnv := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if out, err := (&exec.Cmd{Path: mustLook(t, "git"), Args: []string{"git", "init", "-q", ws}, Env: gitEnv}).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	writeFile(t, filepath.Join(ws, ".env"), "API_TOKEN=not-for-git\n")
	writeFile(t, filepath.Join(ws, "sub", ".env"), "DB_PASSWORD=not-for-git\n")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "debug.log"), "noise\n")
	hook := newHook(t, ws, home)
	script := "export HOME=" + home + " GIT_CONFIG_NOSYSTEM=1; git add -A && git status --porcelain --untracked-files=all"
	out, err := run(t, hook, ws, "git add -A && git status --porcelain", script)
	if err != nil {
		t.Fatalf("git add -A in the sandbox: %v: %s", err, out)
	}
	if !strings.Contains(out, "A  main.go") || strings.Contains(out, ".env") || strings.Contains(out, "debug.log") {
		t.Fatalf("git status after git add -A: %q (want main.go staged, no .env, no debug.log)", out)
	}
	// The control: without the exclude, the mask makes git add -A fail.
	out, err = run(t, hook, ws, "git add -A && git status --porcelain", "unset GIT_CONFIG_COUNT; "+script)
	if err == nil || !strings.Contains(out, "Permission denied") {
		t.Fatalf("control: git add -A without the exclude: %v: %q", err, out)
	}
}

func mustLook(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUserExcludesFollowTheGlobalConfig: the excludes path git gives is
// remembered, and asked again once the global config changes.
func TestUserExcludesFollowTheGlobalConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	writeFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.log\n")
	ex := &gitExcludes{}
	if got := ex.content(home); got != "*.log\n" {
		t.Fatalf("default excludes file: %q", got)
	}
	other := filepath.Join(home, "my-ignore")
	writeFile(t, other, "*.tmp\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesFile = "+other+"\n")
	if got := ex.content(home); got != "*.tmp\n" {
		t.Fatalf("after the global config named another file: %q", got)
	}
}
