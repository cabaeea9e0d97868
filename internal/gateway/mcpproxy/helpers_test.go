package mcpproxy

//lint:file-ignore SA1019 the tests drive MCP sampling, deprecated (SEP-2577) but still relayed by the proxy.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// serverBin is the test MCP server, built once, on first use (fuzz
// workers never need it), into serverDir, which TestMain removes.
var (
	serverOnce sync.Once
	serverBin  string
	serverErr  error
	serverDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{serverDir, parallaxDir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// testServer returns the path of the built test server.
func testServer(t testing.TB) string {
	t.Helper()
	serverOnce.Do(func() {
		if serverDir, serverErr = os.MkdirTemp("", "px-mcp-testserver-"); serverErr != nil {
			return
		}
		bin := filepath.Join(serverDir, "testserver")
		gobin := "go" // go test puts its own GOROOT/bin first on PATH
		out, err := exec.Command(gobin, "build", "-o", bin, "./testserver").CombinedOutput()
		if err != nil {
			serverErr = fmt.Errorf("build testserver: %w\n%s", err, out)
			return
		}
		serverBin = bin
	})
	if serverErr != nil {
		t.Fatal(serverErr)
	}
	return serverBin
}

// testHome is what ~ means in these tests (it need not exist).
const testHome = "/home/dev"

// env is one proxy under test with its real workspace, server and client.
type env struct {
	t       testing.TB
	ws      string
	w       *workspace.Workspace
	gate    *shield.Gate
	pins    FilePins
	log     string // the server's call log
	proxy   *Proxy
	client  *mcp.ClientSession
	script  *approval.Script // the approval channel, when there is one
	changed chan struct{}    // the client was told the tool list changed
	done    chan error       // Run's result
}

// newWorkspace makes an initialised workspace (real database and audit
// chain) in a temporary directory.
func newWorkspace(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.Mkdir(workspace.StateDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	return ws
}

// options tune one env.
type options struct {
	approval  []approval.Step // scripted answers; nil: no approval channel
	timeout   time.Duration   // of an approval request (default 5s)
	closed    bool            // close the broker before the first call
	memory    bool            // gate state in memory, no audit chain (pins stay on disk)
	trust     []string
	serverEnv []string
	gateWrap  func(Gate) Gate
	pinsWrap  func(PinStore) PinStore
	session   string
	// protocol is the client's MCP protocol version ("": the SDK's latest).
	protocol string
	// sampling, when set, makes the client offer sampling and answer
	// with it.
	sampling func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
}

// broker is the approval broker of o (nil without scripted answers),
// with a scripted channel recorded in e.script.
func (e *env) broker(w *workspace.Workspace, o options) Broker {
	if o.approval == nil {
		return nil
	}
	e.script = approval.NewScript("script", o.approval...)
	if o.timeout == 0 {
		o.timeout = 5 * time.Second
	}
	b, err := approval.New(approval.Config{Recorder: w.Audit, Channels: []approval.Channel{e.script}, Timeout: o.timeout})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = b.Close() })
	if o.closed {
		_ = b.Close()
	}
	return b
}

// start opens the workspace at ws, starts the real server as a process,
// the proxy in-process, and a real client on the other side.
func start(t testing.TB, ws string, o options) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := workspace.Open(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	gcfg := w.GateConfig(testHome)
	var aud shield.Appender = w.Audit
	if o.memory {
		gcfg.Store, gcfg.Audit, aud = nil, nil, nil
	}
	g, err := shield.New(gcfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ws: ws, w: w, gate: g, pins: FilePins{Path: filepath.Join(workspace.StateDir(ws), "mcp", "pins.json")},
		log: filepath.Join(ws, "server-calls.log"), changed: make(chan struct{}, 16), done: make(chan error, 1)}
	var gate Gate = g
	if o.gateWrap != nil {
		gate = o.gateWrap(g)
	}
	var pins PinStore = e.pins
	if o.pinsWrap != nil {
		pins = o.pinsWrap(pins)
	}
	if o.session == "" {
		o.session = "mcp-test"
	}
	broker := e.broker(w, o)
	e.proxy, err = New(Config{Gate: gate, Audit: aud, Pins: pins, Approver: broker, TrustTools: o.trust,
		ServerID: "px-testserver", Command: testServer(t), Session: o.session, Workspace: ws, Dir: ws, Home: testHome, Now: fixedNow,
		Roots: Roots{Dirs: []string{ws}, Source: "--root"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testServer(t))
	cmd.Env = append(os.Environ(), append([]string{"PX_TESTSERVER_LOG=" + e.log}, o.serverEnv...)...)
	cmd.Stderr = os.Stderr
	downServer, downClient := mcp.NewInMemoryTransports()
	go func() { e.done <- e.proxy.Run(ctx, downServer, &ProcessTransport{Command: cmd}) }()
	t.Cleanup(func() {
		if e.client != nil {
			_ = e.client.Close()
		}
		select {
		case err := <-e.done:
			if err != nil {
				t.Errorf("proxy Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("proxy did not stop after the client closed")
		}
		cancel()
		if err := w.Close(); err != nil {
			t.Errorf("close workspace: %v", err)
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "px-test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case e.changed <- struct{}{}:
			default:
			}
		},
		CreateMessageHandler: o.sampling})
	e.client, err = client.Connect(ctx, downClient, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatalf("client connect through the proxy: %v", err)
	}
	return e
}

func fixedNow() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }

// tools lists the tools the client sees, by name.
func (e *env) tools() map[string]*mcp.Tool {
	e.t.Helper()
	res, err := e.client.ListTools(context.Background(), nil)
	if err != nil {
		e.t.Fatalf("list tools: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// call calls a tool and returns its text and whether it is an error.
func (e *env) call(name string, args map[string]any) (string, bool) {
	e.t.Helper()
	res, err := e.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteString("\n")
		}
	}
	return b.String(), res.IsError
}

// served reports which tools reached the server, in order.
func (e *env) served() []string {
	b, err := os.ReadFile(e.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}
