package mcpproxy

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/internal/e2e"
)

// The proxy's overhead per call against real servers: a Go SDK client
// calling the server directly, and through the real `parallax mcp proxy`
// binary (its own process, stdio on both sides). Two workloads: the
// filesystem server's read_text_file (mapped to read_file, allowed by
// the gate) and server-everything's echo (an mcp_call, approved by
// --trust-tool). Run:
//
//	PX_MCP_OVERHEAD=1 go test ./internal/gateway/mcpproxy/ -run TestProxyOverhead -v
//	go test ./internal/gateway/mcpproxy/ -run '^$' -bench 'BenchmarkReal'
//
// TestProxyOverhead reports median and p95 over PX_MCP_OVERHEAD_N calls
// (default 300); it asserts nothing about time.

// overheadCase is one workload against a real server.
type overheadCase struct {
	name   string
	server func(tb testing.TB, dir string) []string
	flags  []string
	tool   string
	args   func(dir string) map[string]any
}

var overheadCases = []overheadCase{
	{"filesystem read_text_file",
		func(tb testing.TB, dir string) []string { return []string{e2e.Bin(tb, "mcp-server-filesystem"), dir} },
		nil, "read_text_file", func(dir string) map[string]any { return map[string]any{"path": filepath.Join(dir, "notes.txt")} }},
	{"everything echo",
		func(tb testing.TB, _ string) []string { return []string{e2e.Bin(tb, "mcp-server-everything")} },
		[]string{"--trust-tool", "echo"}, "echo", func(string) map[string]any { return map[string]any{"message": "hello"} }},
}

// connectOverhead connects a Go SDK client to the case's server, through
// the proxy binary when proxied (with a real workspace unless memory).
func connectOverhead(tb testing.TB, c overheadCase, proxied, memory bool) (*mcp.ClientSession, string) {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("meeting at noon\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	argv := c.server(tb, dir)
	if proxied {
		flags := []string{"mcp", "proxy", "--approval", "none", "--home", testHome}
		if memory {
			flags = append(flags, "--no-workspace")
		} else {
			ws := newWorkspace(tb)
			flags = append(flags, "--workspace", ws)
		}
		argv = append(append(append([]string{parallaxBinary(tb)}, flags...), append(c.flags, "--")...), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "px-bench", Version: "1"}, nil).
		Connect(context.Background(), &ProcessTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs, dir
}

func callOnce(tb testing.TB, cs *mcp.ClientSession, c overheadCase, dir string) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args(dir)})
	if err != nil {
		tb.Fatal(err)
	}
	if res.IsError {
		tb.Fatalf("%s: %s", c.tool, texts(res))
	}
}

func TestProxyOverhead(t *testing.T) {
	if os.Getenv("PX_MCP_OVERHEAD") == "" {
		t.Skip("set PX_MCP_OVERHEAD=1 to measure the proxy's overhead against the real servers")
	}
	n := 300
	if s := os.Getenv("PX_MCP_OVERHEAD_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range overheadCases {
		for _, mode := range []struct {
			name            string
			proxied, memory bool
		}{{"direct", false, false}, {"proxied --no-workspace", true, true}, {"proxied workspace", true, false}} {
			cs, dir := connectOverhead(t, c, mode.proxied, mode.memory)
			for range 20 { // warm up (JIT, caches, SQLite)
				callOnce(t, cs, c, dir)
			}
			d := make([]time.Duration, n)
			for i := range d {
				start := time.Now()
				callOnce(t, cs, c, dir)
				d[i] = time.Since(start)
			}
			slices.Sort(d)
			t.Logf("%-26s %-24s n=%d median=%v p95=%v", c.name, mode.name, n, d[n/2], d[n*95/100])
		}
	}
}

func benchReal(b *testing.B, c overheadCase, proxied, memory bool) {
	cs, dir := connectOverhead(b, c, proxied, memory)
	for b.Loop() {
		callOnce(b, cs, c, dir)
	}
}

func BenchmarkRealFilesystemDirect(b *testing.B) { benchReal(b, overheadCases[0], false, false) }
func BenchmarkRealFilesystemProxiedMemory(b *testing.B) {
	benchReal(b, overheadCases[0], true, true)
}
func BenchmarkRealFilesystemProxied(b *testing.B) { benchReal(b, overheadCases[0], true, false) }
func BenchmarkRealEverythingEchoDirect(b *testing.B) {
	benchReal(b, overheadCases[1], false, false)
}
func BenchmarkRealEverythingEchoProxied(b *testing.B) {
	benchReal(b, overheadCases[1], true, false)
}
