package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// testToken is the bearer token of test workspaces.
const testToken = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

const testHome = "/home/dev"

// newWorkspace creates an initialised workspace (the layout parallax init
// writes: .parallax/ 0700, api.token 0600) in a temporary directory.
func newWorkspace(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(workspace.StateDir(root), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(TokenPath(root), []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

// testServer is a server on a real workspace, listening on loopback.
type testServer struct {
	root   string
	url    string
	ws     *workspace.Workspace
	srv    *Server
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// gateWrap lets a test put something in front of the real gate.
type gateWrap func(Gate) Gate

// startServer opens a workspace, builds the real gate on it and serves on
// 127.0.0.1:0. The server is stopped and the workspace closed at cleanup.
func startServer(t testing.TB, cfg Config, wrap gateWrap) *testServer {
	t.Helper()
	return startServerAt(t, newWorkspace(t), cfg, wrap)
}

// startServerAt is startServer on the workspace directory root, which
// must hold .parallax/api.token.
func startServerAt(t testing.TB, root string, cfg Config, wrap gateWrap) *testServer {
	t.Helper()
	ws, err := workspace.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	gate, err := shield.New(ws.GateConfig(testHome))
	if err != nil {
		t.Fatal(err)
	}
	var g Gate = gate
	if wrap != nil {
		g = wrap(gate)
	}
	logs := &syncBuffer{}
	cfg.Gate, cfg.Sessions, cfg.Tainter, cfg.Audit = g, ws.DB, ws.IFCStore(), ws.Audit
	cfg.Token = []byte(testToken)
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return serveLoopback(t, &testServer{root: root, ws: ws, srv: srv, logs: logs})
}

// serveLoopback serves ts.srv on 127.0.0.1:0 and stops it (and closes
// the workspace) at cleanup.
func serveLoopback(t testing.TB, ts *testServer) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts.url, ts.cancel, ts.done = "http://"+ln.Addr().String(), cancel, make(chan error, 1)
	go func() { ts.done <- ts.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		if err := ts.stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return ts
}

// stop shuts the server down and closes the workspace (once).
func (ts *testServer) stop() error {
	var err error
	ts.once.Do(func() {
		ts.cancel()
		err = errors.Join(<-ts.done, ts.ws.Close())
	})
	return err
}

// do sends one request with the test token (auth=true) and returns the
// status and body.
func (ts *testServer) do(t testing.TB, method, path, body string, auth bool) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+testToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// evaluate posts one action and decodes the verdict.
func (ts *testServer) evaluate(t testing.TB, body string) Verdict {
	t.Helper()
	code, b, _ := ts.do(t, http.MethodPost, "/v1/evaluate", body, true)
	if code != http.StatusOK {
		t.Fatalf("evaluate %s: status %d: %s", body, code, b)
	}
	var v Verdict
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("verdict %s: %v", b, err)
	}
	return v
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// payload builds a JSON payload from key/value pairs.
func payload(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
