package mcpproxy

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallDirect is the baseline: a client calling the test server
// process without the proxy.
func BenchmarkCallDirect(b *testing.B) {
	cmd := exec.Command(testServer(b))
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"path": "/tmp/notes.txt"}
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallThroughProxy is the same call through the proxy with a
// real workspace: gate (SQLite taint), DLP screening, Observe, and the
// durable audit entries (the verdict and the result's classification).
func BenchmarkCallThroughProxy(b *testing.B) {
	e := start(b, newWorkspace(b), options{})
	args := map[string]any{"path": e.ws + "/notes.txt"}
	for b.Loop() {
		if _, isErr := e.call("read_file", args); isErr {
			b.Fatal("blocked")
		}
	}
}

// BenchmarkCallThroughProxyMemory: the same without the workspace's
// database and audit chain (what --no-workspace runs).
func BenchmarkCallThroughProxyMemory(b *testing.B) {
	e := start(b, newWorkspace(b), options{memory: true})
	args := map[string]any{"path": e.ws + "/notes.txt"}
	for b.Loop() {
		if _, isErr := e.call("read_file", args); isErr {
			b.Fatal("blocked")
		}
	}
}
