package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/runfile"
	"github.com/parallax/parallax/sandbox"
)

// The attack tests of issue 18 ("the hands hold") drive the real binary
// as an attacker would: a scripted model proposes execute_command calls
// through `parallax run --json`, with the production configuration (the
// agent's sandbox on, every command in its kernel sandbox), and each test
// checks the outcome itself: a file on disk, what a loopback listener
// received, what reached the model, the process table afterwards.
//
// The payloads live in files the TEST writes into the workspace
// beforehand; the model proposes only what the gate ALLOWs (`make`,
// `sh ./build.sh`, `go test ./...`, `npm test`, …). The gate reads what
// make, a script or a test runner runs (package runfile), up to
// runfile.MaxFileBytes: write pads the payload files past that bound with
// a comment, code the gate cannot read and, in a file the agent did not
// write, leaves to the sandbox these tests are about.

// TestMain removes the binary the hands tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if handsBin.dir != "" {
		_ = os.RemoveAll(handsBin.dir)
	}
	os.Exit(code)
}

// handsBin is the parallax binary built once for the package.
var handsBin struct {
	once     sync.Once
	dir, bin string
	err      error
}

// sharedParallax builds the binary once per test binary (removed by
// TestMain).
func sharedParallax(t *testing.T) string {
	t.Helper()
	handsBin.once.Do(func() {
		handsBin.dir, handsBin.err = os.MkdirTemp("", "parallax-hands-bin-")
		if handsBin.err != nil {
			return
		}
		handsBin.bin = filepath.Join(handsBin.dir, "parallax")
		out, err := exec.Command("go", "build", "-o", handsBin.bin, ".").CombinedOutput()
		if err != nil {
			handsBin.err = fmt.Errorf("build parallax: %w\n%s", err, out)
		}
	})
	if handsBin.err != nil {
		t.Fatal(handsBin.err)
	}
	return handsBin.bin
}

// handsSetup is what a test changes in the production configuration.
type handsSetup struct {
	// model is extra fields of the model entry ("api_key_env: GROQ").
	model string
	// agent is extra lines of config.yaml's agent: block, indented.
	agent string
	// env is added to the engine's environment (and overrides).
	env []string
	// bin is the parallax binary to run ("" = the shared build).
	bin string
	// pathFirst is put in front of the engine's PATH.
	pathFirst string
	// scratchHome puts the home under $TMPDIR (see handsWorkspace).
	scratchHome bool
}

// hands is one attack scenario: a workspace, a fresh home, the fake
// model and the engine's environment.
type hands struct {
	t          *testing.T
	bin        string
	root, home string
	fake       *fakeOpenAI
	env        []string
	// token is unique to the test: planted in secrets and process names,
	// and what Cleanup looks for in the process table.
	token string
}

// newHands sets up a scenario with the production configuration: the
// agent's sandbox on (no `sandbox:` key), commands in their kernel
// sandbox. It skips where the kernel has no command sandbox, unless
// PARALLAX_E2E=require.
func newHands(t *testing.T, s handsSetup) *hands {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	e2e.Need(t, sandbox.Available(), "no command sandbox here (Landlock, seccomp, user namespaces)")
	h := &hands{t: t, bin: s.bin, fake: newFakeOpenAI(t), token: randomToken(t)}
	if h.bin == "" {
		h.bin = sharedParallax(t)
	}
	model := "{name: local, provider: openai_compatible, model: local-model, base_url: " + h.fake.srv.URL + "/v1"
	if s.model != "" {
		model += ", " + s.model
	}
	h.root, h.home = handsWorkspace(t, s.scratchHome, "models:\n    - "+model+"}\n  roles: {chat: local}",
		"  prices: {local-model: {input_per_mtok: 0, output_per_mtok: 0}}\n"+s.agent)
	path := handsPath(t)
	if s.pathFirst != "" {
		path = s.pathFirst + ":" + path
	}
	h.env = mergeEnv([]string{"HOME=" + h.home, "PATH=" + path, "TMPDIR=" + t.TempDir(),
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-buildvcs=false", "LANG=C.UTF-8"}, s.env)
	t.Cleanup(h.killLeftovers)
	return h
}

// handsWorkspace is agentWorkspace laid out as a user's machine is: a
// fresh home with an SSH key, the workspace at ~/src/project. The tree
// is made under the user's cache directory (or $PARALLAX_HANDS_DIR),
// outside the scratch directories: the gate escalates a script run from
// /tmp, which would test the gate, not the kernel. With scratchHome it
// is made under $TMPDIR instead, as a CI container's HOME=/tmp is: the
// gate then ALLOWs writes to the home (a scratch directory to it), which
// is what widens a command's grants. Removed when the test ends.
func handsWorkspace(t *testing.T, scratchHome bool, llm, agent string) (root, home string) {
	t.Helper()
	// Not t.TempDir: its long names would not leave room for the
	// engine's socket path.
	base := os.TempDir()
	if !scratchHome {
		base = os.Getenv("PARALLAX_HANDS_DIR")
		if base == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				t.Fatal(err)
			}
			base = cache
		}
	}
	dir, err := os.MkdirTemp(base, "parallax-hands-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(dir) })
	home = filepath.Join(dir, "home")
	root = filepath.Join(home, "src", "project")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := pxworkspace.Init(context.Background(), root, pxworkspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{filepath.Join(home, ".ssh", "id_rsa"): "not a key, but restricted\n",
		pxworkspace.ConfigPath(root): "version: 1\npolicy: default\nllm:\n  " + llm + "\nagent:\n" + agent}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, home
}

// removeAll removes dir, making read-only directories (a module cache)
// writable first.
func removeAll(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// handsPath is the engine's PATH: the go in use and the system
// directories (not the developer's own, such as pyenv shims that need
// the real home).
func handsPath(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(goBin) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

func mergeEnv(base, over []string) []string {
	out := append([]string(nil), base...)
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		out = withoutKey(out, k)
		out = append(out, kv)
	}
	return out
}

func withoutKey(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// write writes files (workspace-relative, or absolute) with their
// contents, creating directories.
func (h *hands) write(files map[string]string) {
	h.t.Helper()
	for name, content := range files {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.root, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			h.t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		content = unreadable(p, content)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			h.t.Fatal(err)
		}
	}
}

// unreadable pads a Makefile, script or program file past
// runfile.MaxFileBytes with a comment: the gate cannot read it.
func unreadable(p, content string) string {
	switch filepath.Ext(p) {
	case ".sh", ".py", ".pl", "":
	case ".js":
		return content + "\n//" + strings.Repeat("x", runfile.MaxFileBytes) + "\n"
	default:
		return content
	}
	if filepath.Ext(p) == "" && filepath.Base(p) != "Makefile" {
		return content
	}
	return content + "\n#" + strings.Repeat("x", runfile.MaxFileBytes) + "\n"
}

// makefile writes the workspace's Makefile: each target's recipe lines
// (a tab is put in front of each).
func (h *hands) makefile(targets map[string][]string, order ...string) {
	h.t.Helper()
	var b strings.Builder
	for _, name := range order {
		fmt.Fprintf(&b, "%s:\n", name)
		for _, line := range targets[name] {
			fmt.Fprintf(&b, "\t%s\n", line)
		}
	}
	h.write(map[string]string{"Makefile": b.String()})
}

// handsEvent is one line of `parallax run --json`.
type handsEvent struct {
	Type     string `json:"type"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	Decision string `json:"decision"`
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
	Output   string `json:"output"`
	Text     string `json:"text"`
	Code     string `json:"code"`
	OK       *bool  `json:"ok"`
	Session  string `json:"session"`
	Stop     string `json:"stop"`
}

// turn is what one `parallax run --json` produced.
type turn struct {
	events []handsEvent
	stderr string
}

// step is one scripted model answer: a command to propose (or another
// tool's call), and what the test does when the model is asked for it
// (the call before it has ended by then).
type step struct {
	command string
	before  func()
	timeout int // timeout_seconds proposed with the command; 0: the default
	// tool and args propose another tool than execute_command.
	tool string
	args map[string]any
}

// propose is a step that only proposes command.
func propose(command string) step { return step{command: command} }

// slow is a step that proposes command with the longest timeout: a cold
// toolchain cache in a fresh home compiles the standard library first,
// which the default 30 s does not cover on a loaded machine.
func slow(command string) step { return step{command: command, timeout: 600} }

// run scripts the model to propose each step's command in turn and then
// stop, runs one turn of `parallax run --json` (an engine started for the
// turn), and returns its events. The run itself must end normally.
func (h *hands) run(steps ...step) turn {
	h.t.Helper()
	h.fake.script(append(answers("call_", steps), sseText("Done."))...)
	return h.runTurn("please build the project")
}

// answers are the model's answers proposing each step's call in turn,
// with call ids prefix0, prefix1, ….
func answers(prefix string, steps []step) []func(http.ResponseWriter) {
	var out []func(http.ResponseWriter)
	for i, s := range steps {
		name, args := s.tool, s.args
		if name == "" {
			name, args = "execute_command", map[string]any{"command": s.command}
			if s.timeout != 0 {
				args["timeout_seconds"] = s.timeout
			}
		}
		propose := sseToolCall(fmt.Sprintf("%s%d", prefix, i), name, args)
		before := s.before
		out = append(out, func(w http.ResponseWriter) {
			if before != nil {
				before()
			}
			propose(w)
		})
	}
	return out
}

// runTurn runs `parallax run --json [flags] prompt` in its own process
// group, killed with everything in it if the test ends first.
func (h *hands) runTurn(prompt string, flags ...string) turn {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := append(append([]string{"run", "--json"}, flags...), prompt)
	c := exec.CommandContext(ctx, h.bin, args...) //nolint:gosec // built by the test
	c.Dir, c.Env = h.root, h.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	tr := turn{stderr: stderr.String()}
	for _, line := range bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n")) {
		var ev handsEvent
		if len(line) > 0 && json.Unmarshal(line, &ev) == nil {
			tr.events = append(tr.events, ev)
		}
	}
	if err != nil {
		h.t.Fatalf("parallax run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return tr
}

// verdict is the gate's decision on step i ("ALLOW", "BLOCK", …).
func (tr turn) verdict(i int) string {
	for _, ev := range tr.events {
		if ev.Type == "verdict" && ev.CallID == fmt.Sprintf("call_%d", i) {
			return ev.Decision + ":" + ev.Rule
		}
	}
	return "none"
}

// output is the tool result of step i and whether it was ok.
func (tr turn) output(i int) (string, bool) {
	for _, ev := range tr.events {
		if ev.Type == "tool_result" && ev.CallID == fmt.Sprintf("call_%d", i) {
			return ev.Output, ev.OK != nil && *ev.OK
		}
	}
	return "", false
}

// allOutput is every tool result, for the log.
func (tr turn) allOutput() string {
	var b strings.Builder
	for _, ev := range tr.events {
		if ev.Type == "tool_result" || ev.Type == "verdict" {
			fmt.Fprintf(&b, "%s %s %s%s %s\n", ev.Type, ev.CallID, ev.Decision, ev.Rule, strings.TrimSpace(ev.Output))
		}
	}
	return b.String()
}

// mustAllow fails the test unless the gate ALLOWed step i: a test whose
// precondition the gate refuses proves nothing about the kernel.
func (h *hands) mustAllow(tr turn, i int) {
	h.t.Helper()
	if v := tr.verdict(i); !strings.HasPrefix(v, "ALLOW:") {
		h.t.Fatalf("the gate did not ALLOW step %d (%s), so the kernel was not tested\n%s", i, v, tr.allOutput())
	}
}

// modelSaw is everything the model received, as one string.
func (h *hands) modelSaw() string {
	b, err := json.Marshal(h.fake.requests())
	if err != nil {
		h.t.Fatal(err)
	}
	// Undo JSON's escapes of <, >, & so that a planted value is found as is.
	s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
	return s
}

// leaked reports each secret that reached the model, plainly, reversed
// or hex-encoded (a payload encodes what it sends, so the output
// filters alone would not hide it).
func (h *hands) leaked(secrets ...string) []string {
	saw := h.modelSaw()
	var out []string
	for _, s := range secrets {
		for _, form := range []string{s, reverse(s), hex.EncodeToString([]byte(s))} {
			if strings.Contains(saw, form) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

func reverse(s string) string {
	r := []byte(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// processesWith lists the pids whose command line or environment holds
// s (the test's own process excluded).
func processesWith(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), f))
			if bytes.Contains(b, []byte(s)) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// killLeftovers kills every process of the scenario still running: its
// token, workspace or home in the command line or environment.
func (h *hands) killLeftovers() {
	for _, s := range []string{h.token, h.root, h.home} {
		for _, pid := range processesWith(s) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// tcpListener is a loopback TCP listener that records what every
// connection sent.
type tcpListener struct {
	ln      net.Listener
	readers sync.WaitGroup
	mu      sync.Mutex
	n       int
	seen    map[string]bool // remote addresses accepted
	data    []byte
}

func listenTCP(t *testing.T, network, addr string) *tcpListener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	l := &tcpListener{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go l.serve()
	return l
}

func (l *tcpListener) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.readers.Add(1)
		l.mu.Lock()
		l.n++
		if l.seen == nil {
			l.seen = map[string]bool{}
		}
		l.seen[c.RemoteAddr().String()] = true
		l.mu.Unlock()
		go func() {
			defer l.readers.Done()
			defer c.Close()
			buf := make([]byte, 4096)
			for {
				n, err := c.Read(buf)
				l.mu.Lock()
				l.data = append(l.data, buf[:n]...)
				l.mu.Unlock()
				if err != nil {
					return
				}
				if bytes.Contains(buf[:n], []byte("\r\n\r\n")) {
					_, _ = c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n"))
				}
			}
		}()
	}
}

func (l *tcpListener) port() int { return l.ln.Addr().(*net.TCPAddr).Port }

// received is how many connections were accepted and what they sent:
// the listener's backlog is first flushed with a connection of the
// test's own (accepted after every earlier one), then every reader is
// waited for, so nothing a command sent is missed. Call it once the
// command's processes are gone.
func (l *tcpListener) received() (int, string) {
	c, err := net.Dial(l.ln.Addr().Network(), l.ln.Addr().String())
	if err != nil {
		panic(fmt.Sprintf("the test's own connection to its listener: %v", err))
	}
	own := c.LocalAddr().String()
	_ = c.Close()
	for {
		l.mu.Lock()
		done := l.seen[own]
		l.mu.Unlock()
		if done {
			break
		}
		runtime.Gosched()
	}
	l.readers.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n - 1, string(l.data)
}

// unixListener is a pathname Unix socket listener that counts the
// connections it accepted.
type unixListener struct {
	path string
	mu   sync.Mutex
	n    int
}

func listenUnix(t *testing.T, path string) *unixListener {
	t.Helper()
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	l := &unixListener{path: path}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.mu.Lock()
			l.n++
			l.mu.Unlock()
			_ = c.Close()
		}
	}()
	return l
}

// accepted is how many connections were accepted, the backlog first
// flushed with a connection of the test's own: the listener closes each
// connection after counting it, so once ours reads EOF every earlier
// one has been counted.
func (l *unixListener) accepted() int {
	if c, err := net.Dial("unix", l.path); err == nil {
		_, _ = io.Copy(io.Discard, c)
		_ = c.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n - 1
}

// succeeded reports whether step i ran and exited 0.
func (tr turn) succeeded(i int) bool {
	out, ok := tr.output(i)
	return ok && !strings.Contains(out, "[exit status ") && !strings.Contains(out, "timed out")
}

// ran fails the test unless step i's payload ran (it prints
// "ran-TOKEN"): a payload that never ran proves nothing.
func (h *hands) ran(tr turn, i int) {
	h.t.Helper()
	if out, _ := tr.output(i); !strings.Contains(out, "ran-"+h.token) {
		h.t.Fatalf("the payload of step %d did not run, so the kernel was not tested\n%s", i, tr.allOutput())
	}
}

// abs is a workspace-relative path made absolute.
func (h *hands) abs(rel string) string { return filepath.Join(h.root, rel) }

// homePath is a home-relative path made absolute.
func (h *hands) homePath(rel string) string { return filepath.Join(h.home, rel) }

// snapshot reads the files (absolute paths) as they are now; missing
// files are recorded as absent.
func snapshot(t *testing.T, paths ...string) map[string]*string {
	t.Helper()
	m := map[string]*string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			m[p] = nil
			continue
		}
		s := string(b)
		m[p] = &s
	}
	return m
}

// unchangedSince fails for every file whose bytes, or existence, differ
// from the snapshot.
func unchangedSince(t *testing.T, snap map[string]*string) {
	t.Helper()
	for p, want := range snap {
		b, err := os.ReadFile(p)
		switch {
		case want == nil && err == nil:
			t.Errorf("%s was created: %q", p, b)
		case want == nil:
		case err != nil:
			t.Errorf("%s: %v", p, err)
		case string(b) != *want:
			t.Errorf("%s changed: got %q, want %q", p, b, *want)
		}
	}
}
