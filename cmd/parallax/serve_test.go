package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/httpapi"
	"github.com/parallax/parallax/verdict"
)

const (
	serveTestToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
	envServeArgs   = "PARALLAX_SERVE_TEST_ARGS"
)

// serveWorkspace creates what parallax init leaves: .parallax/ and a
// private api.token.
func newServeWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".parallax"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(httpapi.TokenPath(ws), []byte(serveTestToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestServeRefusesToStart: every misconfiguration stops serve before it
// listens, with an error that says what to do.
func TestServeRefusesToStart(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, ws string)
		args    []string
		wantErr string
	}{
		{"no workspace", func(t *testing.T, ws string) { os.RemoveAll(filepath.Join(ws, ".parallax")) }, nil, "run parallax init"},
		{"no token", func(t *testing.T, ws string) { os.Remove(httpapi.TokenPath(ws)) }, nil, "run parallax init"},
		{"token readable by others", func(t *testing.T, ws string) { os.Chmod(httpapi.TokenPath(ws), 0o644) }, nil, "chmod 600"},
		{"token malformed", func(t *testing.T, ws string) { os.WriteFile(httpapi.TokenPath(ws), []byte("short"), 0o600) }, nil, "malformed"},
		{"remote address", nil, []string{"--addr", "0.0.0.0:0"}, "--allow-remote"},
		{"bad address", nil, []string{"--addr", "nowhere"}, "listen address"},
		{"bad log level", nil, []string{"--log-level", "loud"}, "--log-level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := newServeWorkspace(t)
			if tc.setup != nil {
				tc.setup(t, ws)
			}
			cmd := newServeCmd()
			var stderr bytes.Buffer
			cmd.SetErr(&stderr)
			cmd.SetOut(&stderr)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			cmd.SetArgs(append([]string{"--workspace", ws, "--home", t.TempDir(), "--addr", "127.0.0.1:0"}, tc.args...))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := cmd.ExecuteContext(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error()+stderr.String(), serveTestToken) {
				t.Errorf("the token was echoed")
			}
		})
	}
}

// TestServeChild is not a test on its own: TestServeSubprocess runs the
// test binary again with it selected, as `parallax serve ARGS…`.
func TestServeChild(t *testing.T) {
	raw := os.Getenv(envServeArgs)
	if raw == "" {
		t.Skip("run by TestServeSubprocess")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	cmd := newServeCmd()
	cmd.SetArgs(args)
	cmd.SetErr(os.Stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestServeSubprocess: parallax serve in its own process, driven over
// loopback by concurrent clients, stopped by SIGTERM: it exits 0, every
// decision is in the audit chain, and the logs hold neither the token nor
// payloads.
func TestServeSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	ws, home := newServeWorkspace(t), t.TempDir()
	args, _ := json.Marshal([]string{"--workspace", ws, "--home", home, "--addr", "127.0.0.1:0"})
	child := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	child.Env = append(os.Environ(), envServeArgs+"="+string(args))
	stderr, err := child.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	logs := &lockedBuffer{}
	addrc := make(chan string, 1)
	go scanServeLogs(stderr, logs, addrc)
	var base string
	select {
	case addr := <-addrc:
		base = "http://" + addr
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not report its address; logs:\n%s", logs.String())
	}

	const clients, each = 16, 8
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("c%d-%d", c, i)
				want, body := verdict.Allow, fmt.Sprintf(`{"id":%q,"session":%q,"type":"read_file","payload":{"path":"%s/f-%s.txt"}}`, id, id, ws, id)
				if i%2 == 1 {
					want, body = verdict.Block, fmt.Sprintf(`{"id":%q,"session":%q,"type":"read_file","payload":{"path":"~/.aws/credentials-%s"}}`, id, id, id)
				}
				var v httpapi.Verdict
				if code := serveCall(t, base, "POST", "/v1/evaluate", body, &v); code != 200 || v.ID != id || v.Decision != want {
					t.Errorf("%s: got %d %+v, want 200 %v", id, code, v, want)
				}
			}
		})
	}
	wg.Wait()
	obs := `{"session":"s1","type":"read_file","payload":{"path":"` + ws + `/app.env"},"result":"DATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app"}`
	if code := serveCall(t, base, "POST", "/v1/observe", obs, nil); code != http.StatusNoContent {
		t.Errorf("observe: got %d, want 204", code)
	}
	var info httpapi.SessionInfo
	if code := serveCall(t, base, "GET", "/v1/sessions/s1", "", &info); code != 200 || info.Taint == "public" {
		t.Errorf("session s1 after a secret: got %d %+v", code, info)
	}

	if err := child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v; logs:\n%s", err, logs.String())
	}
	text := logs.String()
	if !strings.Contains(text, "audit chain flushed") {
		t.Errorf("no clean stop in the logs:\n%s", text)
	}
	for _, leak := range []string{serveTestToken, "Wq7vR2pL9xM4", "credentials-"} {
		if strings.Contains(text, leak) {
			t.Errorf("the logs hold %q", leak)
		}
	}
	rep, err := audit.Verify(audit.DefaultPath(ws), audit.VerifyOptions{})
	if err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	if want := clients*each + 1; rep.Entries != want {
		t.Errorf("audit entries: got %d, want %d (every decision and the observation)", rep.Entries, want)
	}
}

// scanServeLogs copies the child's JSON log lines and reports the address
// of its "listening" line.
func scanServeLogs(r io.Reader, logs *lockedBuffer, addrc chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		logs.WriteString(line + "\n")
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
			addrc <- rec.Addr
		}
	}
}

func serveCall(t *testing.T, base, method, path, body string, out any) int {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+serveTestToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Errorf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
