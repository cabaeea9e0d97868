package claudehook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/e2e"
	"github.com/parallax/parallax/internal/e2e/claudecli"
)

var (
	buildDir  string
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// parallaxBin builds cmd/parallax once per test binary.
func parallaxBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := e2e.Root()
		if err != nil {
			buildErr = err
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "parallax-e2e-bin-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "parallax")
		cmd := exec.Command("go", "build", "-o", buildBin, "./cmd/parallax")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build parallax: %v", buildErr)
	}
	return buildBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// hookKind is what .claude/settings.json runs around every tool call.
type hookKind int

const (
	hookParallax hookKind = iota // parallax init + parallax hook claude-code install
	hookTrue                     // the do-nothing hook `true` (the control)
)

// env is one temporary HOME with a project in it.
type env struct {
	t             *testing.T
	claude        string
	bin           string // parallax; "" for hookTrue
	planted       bool   // an impostor holds the daemon's socket: no daemon decides
	noDaemon      bool   // no daemon decides: PARALLAX_HOOK_DAEMON=off, or the audit chain's lock held throughout
	home, project string
	api           *claudecli.FakeAPI
	// cliEnv is more environment for the CLI (after claudecli.Env).
	cliEnv []string
	// timeout bounds each CLI run (claudecli.DefaultTimeout when zero).
	timeout time.Duration
}

// newEnv makes HOME (with a fake SSH key) and HOME/project, and installs
// the hook. Files are created before the hook is installed. With the
// Parallax hook, the project's hook daemon is started before the CLI
// runs and stopped when the test ends (startDaemon).
func newEnv(t *testing.T, kind hookKind, files map[string]string) *env {
	t.Helper()
	return newEnvWith(t, kind, files, nil)
}

// newEnvWith is newEnv with setup run once the files are written, before
// the hook is installed (nil: nothing).
func newEnvWith(t *testing.T, kind hookKind, files map[string]string, setup func(*env)) *env {
	t.Helper()
	e := &env{t: t, claude: e2e.Bin(t, "claude")}
	e.home = t.TempDir()
	e.project = filepath.Join(e.home, "project")
	for name, body := range files {
		e.write(name, body)
	}
	e.write("~/.ssh/id_rsa", fakeKey)
	if setup != nil {
		setup(e)
	}
	switch kind {
	case hookParallax:
		e.bin = parallaxBin(t)
		e.parallax("init", e.project, "--policy", "default")
		e.parallax("hook", "claude-code", "install", "--binary", e.bin)
		e.startDaemon()
	case hookTrue:
		if err := os.MkdirAll(e.project, 0o700); err != nil {
			t.Fatal(err)
		}
		hooks := map[string]any{}
		for _, ev := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"} {
			hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": "true"}}}}
		}
		claudecli.WriteSettings(t, e.project, map[string]any{"hooks": hooks})
	}
	return e
}

// path resolves "~/x" against HOME and anything else against the project.
func (e *env) path(name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		return filepath.Join(e.home, rest)
	}
	return filepath.Join(e.project, name)
}

func (e *env) write(name, body string) {
	e.t.Helper()
	p := e.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// parallax runs the parallax binary in the project with HOME, failing the
// test on a non-zero exit.
func (e *env) parallax(args ...string) string {
	e.t.Helper()
	out, err := e.parallaxErr(args...)
	if err != nil {
		e.t.Fatalf("parallax %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (e *env) parallaxErr(args ...string) (string, error) {
	if err := os.MkdirAll(e.project, 0o700); err != nil {
		return "", err
	}
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.project
	cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run starts the fake model with the main conversation's turns and runs
// claude -p in the project. It returns the run and its session id.
func (e *env) run(turns ...claudecli.Turn) (claudecli.Result, string) {
	e.t.Helper()
	return e.runConversations(claudecli.Conversation{Turns: turns})
}

// runConversations is run with several scripted conversations (sub-agents
// first, the main one, matching everything, last).
func (e *env) runConversations(convs ...claudecli.Conversation) (claudecli.Result, string) {
	e.t.Helper()
	e.api = claudecli.NewFakeAPI(e.t, convs...)
	res := claudecli.Run(e.t, e.api, claudecli.Options{Bin: e.claude, Dir: e.project, Home: e.home, Env: e.cliEnv,
		Timeout: e.timeout})
	if res.ExitCode != 0 {
		e.t.Fatalf("claude exit %d\nstderr:\n%s\nstdout:\n%s", res.ExitCode, res.Stderr, res.Stdout)
	}
	if e.bin != "" && !e.planted && !e.noDaemon {
		e.checkDaemonAnswered()
	}
	return res, sessionID(e.t, res.Stdout)
}

// sessionID is the session_id of the stream-json init message.
func sessionID(t *testing.T, stdout []byte) string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			Type, Subtype string
			SessionID     string `json:"session_id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Type == "system" && m.Subtype == "init" {
			return m.SessionID
		}
	}
	t.Fatalf("no init message with a session_id in the CLI's output:\n%s", stdout)
	return ""
}

// result is the tool result the CLI sent back for id; the test fails when
// there is none.
func (e *env) result(id string) claudecli.ToolResult {
	e.t.Helper()
	r, ok := e.api.ToolResult(id)
	if !ok {
		e.t.Fatalf("the CLI sent no tool_result for %s", id)
	}
	return r
}

// auditEntry is the part of an audit line the tests read.
type auditEntry struct {
	Type     string `json:"type"`
	Session  string `json:"session"`
	Action   string `json:"action"`
	Decision string `json:"decision"`
	Stage    string `json:"stage"`
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
	Detail   struct {
		Code string `json:"code"`
	} `json:"detail"`
}

// audit is every audit entry of the session, through `parallax audit`.
func (e *env) audit(session string) []auditEntry {
	e.t.Helper()
	out := e.parallax("audit", "--workspace", e.project, "--session", session, "--json", "-n", "0")
	var entries []auditEntry
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var a auditEntry
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			e.t.Fatalf("audit line %q: %v", line, err)
		}
		entries = append(entries, a)
	}
	return entries
}

func bash(id, command string) claudecli.Turn {
	return claudecli.Turn{Tools: []claudecli.ToolUse{{ID: id, Name: "Bash",
		Input: map[string]any{"command": command, "description": "scripted"}}}}
}

func tool(id, name string, input map[string]any) claudecli.Turn {
	return claudecli.Turn{Tools: []claudecli.ToolUse{{ID: id, Name: name, Input: input}}}
}

// fakeKey is the private key planted in HOME; keyMaterial must never
// reach the model.
const (
	keyMaterial = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
	fakeKey     = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + keyMaterial + "\n-----END OPENSSH PRIVATE KEY-----\n"
)

// httpRecorder is a loopback HTTP listener that records the path and
// query of every request (where an upload would land), followed by a
// space and its body (the first MiB).
type httpRecorder struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

func newHTTPRecorder(t *testing.T) *httpRecorder {
	t.Helper()
	r := &httpRecorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		r.mu.Lock()
		r.got = append(r.got, req.URL.RequestURI()+" "+string(body))
		r.mu.Unlock()
		_, _ = w.Write([]byte("ok\n"))
	}))
	t.Cleanup(r.Close)
	return r
}

// requests closes the listener (every request has been answered) and
// returns what it received.
func (r *httpRecorder) requests() []string {
	r.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}
