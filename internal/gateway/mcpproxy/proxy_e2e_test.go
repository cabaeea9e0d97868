package mcpproxy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
)

// node finds the node binary the TypeScript client runs on.
func node(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv(e2e.RequireEnv) == "require" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return p
}

// TestTypeScriptClient drives the real `parallax mcp proxy` binary with
// the official TypeScript SDK client (testdata/e2e_client.mjs): against
// the real mcp-server-everything (resources, templates, prompts,
// completion, a tool, progress, logging; sampling offered to the server
// only when the client offers it; no roots), and against the test
// server, which plants credentials in every channel the proxy forwards.
func TestTypeScriptClient(t *testing.T) {
	nodeBin := node(t)
	sdk := e2e.Module(t, "@modelcontextprotocol/sdk")
	everything := e2e.Bin(t, "mcp-server-everything")
	script, err := filepath.Abs(filepath.Join("testdata", "e2e_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := []string{parallaxBinary(t), "mcp", "proxy", "--no-workspace", "--approval", "none", "--home", testHome}
	trustEverything := []string{"--trust-tool", "echo", "--trust-tool", "trigger-long-running-operation",
		"--trust-tool", "toggle-simulated-logging", "--trust-tool", "trigger-sampling-request",
		"--trust-tool", "toggle-subscriber-updates"}
	trustTest := []string{"--trust-tool", "leak", "--trust-tool", "log_secret", "--trust-tool", "sample"}
	type run struct {
		mode   string
		server []string
		trust  []string
	}
	runs := []run{
		{"everything", []string{everything}, trustEverything},
		{"everything-nosampling", []string{everything}, trustEverything},
	}
	for _, part := range []string{"resources", "channel=meta", "channel=item_meta", "channel=structured", "channel=image", "log", "sampling"} {
		runs = append(runs, run{"secrets:" + part, []string{testServer(t)}, trustTest})
	}
	for _, r := range runs {
		t.Run(r.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			args := append([]string{script, r.mode}, proxy...)
			args = append(append(append(args, r.trust...), "--"), r.server...)
			cmd := exec.CommandContext(ctx, nodeBin, args...)
			cmd.Env = append(os.Environ(), "PX_SDK="+sdk)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "\nPASS\n") {
				t.Fatalf("%s: %v\n%s", r.mode, err, out)
			}
		})
	}
}

// TestTypeScriptClientFileURIs replays the attack of issue 20 (item 6)
// with real parts: the official TypeScript SDK client, the real
// `parallax mcp proxy` binary, and a server on the same SDK that reads
// any file URI with Node's WHATWG URL parser (testdata/e2e_fileserver.mjs).
// Every odd spelling of ~/.netrc and of a workspace's
// .parallax/api.token is refused by the proxy, read and subscription
// alike, and the server never receives one; a plain workspace file is
// served. HOME is a temporary directory for every process.
func TestTypeScriptClientFileURIs(t *testing.T) {
	nodeBin := node(t)
	sdk := e2e.Module(t, "@modelcontextprotocol/sdk")
	script, err := filepath.Abs(filepath.Join("testdata", "e2e_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := filepath.Abs(filepath.Join("testdata", "e2e_fileserver.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	home, ws := newRealHome(t)
	const secret = "machine example.com login px password s3cr3t-f1le-ur1"
	netrc, token, control := filepath.Join(home, ".netrc"), filepath.Join(ws, ".parallax", "api.token"), filepath.Join(ws, "notes.txt")
	for p, content := range map[string]string{netrc: secret + "\n", token: secret + "\n", control: "control file\n"} {
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	received := filepath.Join(t.TempDir(), "received.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, "fileuris", parallaxBinary(t), "mcp", "proxy", "--no-workspace",
		"--approval", "none", "--home", home, "--", nodeBin, server, sdk, received)
	cmd.Env = append(os.Environ(), "HOME="+home, "PX_SDK="+sdk,
		`PX_TARGETS=["`+netrc+`","`+token+`"]`, "PX_CONTROL="+control, "PX_SECRET="+secret)
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS\n") {
		t.Fatalf("fileuris: %v\n%s", err, out)
	}
	b, err := os.ReadFile(received)
	if err != nil {
		t.Fatalf("the server received nothing, not even the control read: %v", err)
	}
	want := `{"method":"resources/read","uri":"file://` + control + `"}`
	if got := strings.TrimSpace(string(b)); got != want {
		t.Errorf("the server received:\n%s\nwant only %s", got, want)
	}
}
