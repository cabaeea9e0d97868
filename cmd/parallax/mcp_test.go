package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/e2e"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// mcpStderr collects stderr written from several goroutines.
type mcpStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *mcpStderr) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *mcpStderr) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// buildMCPTestServer builds the real MCP test server (a go-sdk server
// with canned tools) into a temporary directory.
func buildMCPTestServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "px-testserver")
	gobin := "go" // go test puts its own GOROOT/bin first on PATH
	out, err := exec.Command(gobin, "build", "-o", bin, "../../internal/gateway/mcpproxy/testserver").CombinedOutput()
	if err != nil {
		t.Fatalf("build test server: %v\n%s", err, out)
	}
	return bin
}

// mcpSession is one `parallax mcp proxy` run, in-process on pipes, with a
// real go-sdk client on the other side and the server as a real process.
type mcpSession struct {
	t      *testing.T
	client *mcp.ClientSession
	stderr *mcpStderr
	done   chan error
}

func startMCPProxy(t *testing.T, args ...string) *mcpSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &mcpSession{t: t, stderr: &mcpStderr{}, done: make(chan error, 1)}
	cmd := newMCPCmd()
	cmd.SetArgs(append([]string{"proxy"}, args...))
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	cmd.SetErr(s.stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	go func() {
		s.done <- cmd.ExecuteContext(context.Background())
		_ = outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "px-cli-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect through `parallax mcp proxy`: %v\nstderr:\n%s", err, s.stderr)
	}
	s.client = cs
	return s
}

// stop closes the client and waits for the command to return.
func (s *mcpSession) stop() error {
	s.t.Helper()
	_ = s.client.Close()
	select {
	case err := <-s.done:
		return err
	case <-time.After(15 * time.Second):
		s.t.Fatal("parallax mcp proxy did not return after the client closed")
		return nil
	}
}

func (s *mcpSession) call(name string, args map[string]any) (string, bool) {
	s.t.Helper()
	res, err := s.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func (s *mcpSession) description(tool string) string {
	s.t.Helper()
	res, err := s.client.ListTools(context.Background(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == tool {
			return tl.Description
		}
	}
	s.t.Fatalf("tool %s not listed", tool)
	return ""
}

// TestMCPProxyCommand: the proxy between a real MCP client and a real MCP
// server process shows a blocked call, an allowed call, a redacted result
// and a pinned-tool change that `parallax mcp pins approve` releases.
func TestMCPProxyCommand(t *testing.T) {
	bin := buildMCPTestServer(t)
	ws := t.TempDir()
	if err := os.Mkdir(pxworkspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	common := []string{"--workspace", ws, "--home", "/home/dev", "--approval", "none", "--name", "px-test"}

	s := startMCPProxy(t, append(common, "--session", "cli-1", "--", bin)...)
	steps := []struct {
		name, tool string
		args       map[string]any
		isError    bool
		want       string
	}{
		{"blocked", "run_command", map[string]any{"command": "cat ~/.ssh/id_rsa"}, true, "guard_restricted"},
		{"allowed", "read_file", map[string]any{"path": filepath.Join(ws, "notes.txt")}, false, "contents of notes.txt"},
		{"escalation without a channel", "echo", map[string]any{"text": "hi"}, true, "needs approval; no approval channel"},
		{"redacted", "read_file", map[string]any{"path": filepath.Join(ws, "app.ini")}, false, "[REDACTED:aws_secret_access_key]"},
	}
	for _, st := range steps {
		got, isErr := s.call(st.tool, st.args)
		if isErr != st.isError || !strings.Contains(got, st.want) || strings.Contains(got, "q8Vt2LmN0") {
			t.Errorf("%s: got %q (error %v), want %q (error %v)", st.name, got, isErr, st.want, st.isError)
		}
	}
	if err := s.stop(); err != nil {
		t.Fatalf("first run: %v\n%s", err, s.stderr)
	}

	// The server comes back with a different echo: held until approved.
	t.Setenv("PX_TESTSERVER_RUGPULL", "1")
	s = startMCPProxy(t, append(common, "--trust-tool", "echo", "--", bin)...)
	if d := s.description("echo"); !strings.Contains(d, "changed since pinned") || strings.Contains(d, "id_rsa") {
		t.Errorf("changed echo: got %q, want a held placeholder", d)
	}
	if got, isErr := s.call("echo", map[string]any{"text": "x"}); !isErr || !strings.Contains(got, "parallax mcp pins approve px-test echo") {
		t.Errorf("call to the changed echo: got %q (error %v)", got, isErr)
	}
	if !strings.Contains(s.stderr.String(), "changed") {
		t.Errorf("the change was not reported on stderr:\n%s", s.stderr)
	}

	out, err := runMCP(t, "pins", "--workspace", ws)
	if err != nil || !strings.Contains(out, "held:changed") || !strings.Contains(out, "held:poisoned") {
		t.Errorf("pins list: got %q, %v", out, err)
	}
	out, err = runMCP(t, "pins", "approve", "px-test", "echo", "--workspace", ws)
	if err != nil || !strings.Contains(out, "approved echo on px-test") {
		t.Fatalf("approve: got %q, %v", out, err)
	}
	// The running proxy serves the approved definition from the next call.
	if got, isErr := s.call("echo", map[string]any{"text": "after approval"}); isErr || got != "after approval" {
		t.Errorf("after approval: got %q (error %v)", got, isErr)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("second run: %v", err)
	}

	rep, err := audit.Verify(audit.DefaultPath(ws), audit.VerifyOptions{})
	if err != nil || rep.Entries == 0 {
		t.Fatalf("audit chain: %v", err)
	}
	raw, _ := os.ReadFile(audit.DefaultPath(ws))
	for _, want := range []string{"mcp_tool_changed", "mcp_tool_approved", "approval_unavailable", "mcp_trusted_tool"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("audit chain lacks %s", want)
		}
	}
}

func runMCP(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newMCPCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// TestMCPProxyNeedsWorkspace: without an initialised workspace the proxy
// refuses to start (and says how to proceed); --no-workspace runs in
// memory.
func TestMCPProxyNeedsWorkspace(t *testing.T) {
	ws := t.TempDir()
	_, err := runMCP(t, "proxy", "--workspace", ws, "--approval", "none", "--", "/bin/true")
	if err == nil || !strings.Contains(err.Error(), "--no-workspace") || !strings.Contains(err.Error(), "parallax init") {
		t.Errorf("got %v, want a refusal naming parallax init and --no-workspace", err)
	}
	if _, err := os.Stat(pxworkspace.StateDir(ws)); !os.IsNotExist(err) {
		t.Errorf("the refusal created .parallax")
	}
	bin := buildMCPTestServer(t)
	s := startMCPProxy(t, "--no-workspace", "--workspace", ws, "--home", "/home/dev", "--approval", "none", "--", bin)
	if got, isErr := s.call("run_command", map[string]any{"command": "cat ~/.ssh/id_rsa"}); !isErr || !strings.Contains(got, "guard_restricted") {
		t.Errorf("memory-only gate: got %q (error %v)", got, isErr)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pxworkspace.StateDir(ws)); !os.IsNotExist(err) {
		t.Errorf("--no-workspace wrote state to disk")
	}
}

func TestMCPPinsErrors(t *testing.T) {
	ws := t.TempDir()
	if _, err := runMCP(t, "pins", "--workspace", ws); err == nil {
		t.Errorf("pins in an uninitialised workspace: want an error")
	}
	if err := os.Mkdir(pxworkspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"pins", "--workspace", ws}, "no MCP servers pinned"},
		{[]string{"pins", "approve", "nope", "echo", "--workspace", ws}, `no server "nope"`},
		{[]string{"pins", "approve", "nope", "--workspace", ws}, "name the tools to approve, or pass --all"},
		{[]string{"proxy", "--no-workspace", "--workspace", ws, "--approval", "maybe", "--", "/bin/true"}, `--approval "maybe"`},
		{[]string{"proxy", "--no-workspace", "--workspace", ws, "--name", "bad name", "--approval", "none", "--", "/bin/true"}, "server name"},
	}
	for _, tt := range tests {
		out, err := runMCP(t, tt.args...)
		got := out
		if err != nil {
			got += err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%v: got %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestMCPProxyBinary runs the built parallax binary as the proxy process
// between a go-sdk client (which launches it, as Claude Desktop would)
// and the test server.
func TestMCPProxyBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	px := filepath.Join(dir, "parallax")
	gobin := "go" // go test puts its own GOROOT/bin first on PATH
	if out, err := exec.Command(gobin, "build", "-o", px, ".").CombinedOutput(); err != nil {
		t.Fatalf("build parallax: %v\n%s", err, out)
	}
	if out, err := exec.Command(px, "mcp", "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "proxy") {
		t.Fatalf("parallax mcp --help: %v, want the proxy subcommand listed:\n%s", err, out)
	}
	bin := buildMCPTestServer(t)
	ws := t.TempDir()
	if err := os.Mkdir(pxworkspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	proxy := exec.Command(px, "mcp", "proxy", "--workspace", ws, "--home", "/home/dev", "--approval", "none", "--", bin)
	var stderr mcpStderr
	proxy.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "px-binary-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: proxy}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	s := &mcpSession{t: t, client: cs}
	if got, isErr := s.call("run_command", map[string]any{"command": "cat ~/.ssh/id_rsa"}); !isErr || !strings.Contains(got, "guard_restricted") {
		t.Errorf("blocked: got %q (error %v)", got, isErr)
	}
	if got, isErr := s.call("read_file", map[string]any{"path": filepath.Join(ws, "app.ini")}); isErr || !strings.Contains(got, "[REDACTED:") {
		t.Errorf("redacted: got %q (error %v)", got, isErr)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
	if _, err := audit.Verify(audit.DefaultPath(ws), audit.VerifyOptions{}); err != nil {
		t.Errorf("audit chain: %v", err)
	}
}

// buildParallax builds the parallax binary into a temporary directory.
func buildParallax(t *testing.T) string {
	t.Helper()
	px := filepath.Join(t.TempDir(), "parallax")
	gobin := "go" // go test puts its own GOROOT/bin first on PATH
	if out, err := exec.Command(gobin, "build", "-o", px, ".").CombinedOutput(); err != nil {
		t.Fatalf("build parallax: %v\n%s", err, out)
	}
	return px
}

// TestMCPProxyNoTerminal runs the binary as a desktop client would: in a
// new session (Setsid), so it has no controlling terminal. An escalation
// must come back at once as a BLOCK saying how to approve, never wait on
// a terminal; `parallax mcp trust` then lets it through, `--remove`
// withdraws it, and both are audited.
func TestMCPProxyNoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	px := buildParallax(t)
	bin := buildMCPTestServer(t)
	ws := t.TempDir()
	if err := os.Mkdir(pxworkspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	connect := func() (*mcpSession, *mcpStderr) {
		proxy := exec.Command(px, "mcp", "proxy", "--workspace", ws, "--home", "/home/dev", "--name", "canned", "--", bin)
		proxy.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		var stderr mcpStderr
		proxy.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "px-desktop", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: proxy}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		return &mcpSession{t: t, client: cs}, &stderr
	}
	s, stderr := connect()
	got, isErr := s.call("echo", map[string]any{"text": "hello"})
	if !isErr || !strings.Contains(got, "no terminal") || !strings.Contains(got, "`parallax mcp trust canned echo`") {
		t.Errorf("escalation with no terminal: got %q (error %v), want a BLOCK naming the trust command", got, isErr)
	}
	if err := s.client.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}

	out, err := runMCP(t, "trust", "canned", "echo", "--workspace", ws)
	if err != nil || !strings.Contains(out, "trusted echo on canned") {
		t.Fatalf("mcp trust: %q, %v", out, err)
	}
	if out, err := runMCP(t, "trust", "--workspace", ws); err != nil || !strings.Contains(out, "canned") || !strings.Contains(out, "trusted") {
		t.Errorf("mcp trust list: %q, %v", out, err)
	}
	s, _ = connect()
	if got, isErr := s.call("echo", map[string]any{"text": "hello"}); isErr || !strings.Contains(got, "hello") {
		t.Errorf("trusted echo: got %q (error %v), want it served", got, isErr)
	}
	// Trust never lifts a BLOCK.
	if _, err := runMCP(t, "trust", "canned", "run_command", "--workspace", ws); err != nil {
		t.Fatal(err)
	}
	if got, isErr := s.call("run_command", map[string]any{"command": "cat ~/.ssh/id_rsa"}); !isErr || !strings.Contains(got, "guard_restricted") {
		t.Errorf("trusted run_command of a denylisted read: got %q (error %v), want a BLOCK", got, isErr)
	}
	_ = s.client.Close()
	if out, err := runMCP(t, "trust", "canned", "echo", "--remove", "--workspace", ws); err != nil || !strings.Contains(out, "no longer trusted") {
		t.Errorf("mcp trust --remove: %q, %v", out, err)
	}
	if _, err := runMCP(t, "trust", "canned", "nope", "--workspace", ws); err == nil {
		t.Errorf("trusting an unknown tool: want an error")
	}
	b, err := os.ReadFile(audit.DefaultPath(ws))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"mcp_tool_trusted", "mcp_tool_untrusted", "approval_unavailable"} {
		if !strings.Contains(string(b), code) {
			t.Errorf("audit chain lacks %s", code)
		}
	}
}

// TestMCPProxyNoTerminalEverything: the real server-everything behind the
// binary with no controlling terminal, as a desktop client runs it: echo
// (annotated read-only and local) works; an unannotated-effect tool is
// refused at once with what is unknown and how to approve.
func TestMCPProxyNoTerminalEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	everything := e2e.Bin(t, "mcp-server-everything")
	px := buildParallax(t)
	ws := t.TempDir()
	if err := os.Mkdir(pxworkspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	proxy := exec.Command(px, "mcp", "proxy", "--workspace", ws, "--name", "everything", "--", everything)
	proxy.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stderr mcpStderr
	proxy.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "px-desktop", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: proxy}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	s := &mcpSession{t: t, client: cs}
	if got, isErr := s.call("echo", map[string]any{"message": "hello"}); isErr || !strings.Contains(got, "Echo: hello") {
		t.Errorf("echo: got %q (error %v), want it allowed", got, isErr)
	}
	got, isErr := s.call("toggle-simulated-logging", map[string]any{})
	if !isErr || !strings.Contains(got, "does not know what tool toggle-simulated-logging of server everything does") ||
		!strings.Contains(got, "`parallax mcp trust everything toggle-simulated-logging`") {
		t.Errorf("unknown tool: got %q (error %v)", got, isErr)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
}
