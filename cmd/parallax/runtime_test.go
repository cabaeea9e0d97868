package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// fakeOpenAI is an OpenAI-compatible chat completions server on
// loopback: it streams the scripted answers in the wire format (SSE
// chunks, tool call deltas, a usage chunk, [DONE]) and records the
// requests.
type fakeOpenAI struct {
	srv     *httptest.Server
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	reqs    []map[string]any
	auth    []string
}

func newFakeOpenAI(t *testing.T, answers ...func(w http.ResponseWriter)) *fakeOpenAI {
	f := &fakeOpenAI{answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.reqs = append(f.reqs, body)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	var answer func(http.ResponseWriter)
	if len(f.answers) > 0 {
		answer, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	if answer == nil || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"no answer left","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	answer(w)
}

// script sets the answers to come.
func (f *fakeOpenAI) script(answers ...func(http.ResponseWriter)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = answers
}

func (f *fakeOpenAI) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.reqs...)
}

// sseToolCall answers with one tool call, its arguments in two deltas.
func sseToolCall(id, name string, args map[string]any) func(http.ResponseWriter) {
	return sseToolCalls(toolCall{id: id, name: name, args: args})
}

// toolCall is one call of a scripted model answer.
type toolCall struct {
	id, name string
	args     map[string]any
}

// sseToolCalls answers with several tool calls at once, as models that
// call tools in parallel do: each call's arguments in two deltas.
func sseToolCalls(calls ...toolCall) func(http.ResponseWriter) {
	chunks := []string{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"On it."},"finish_reason":null}]}`}
	for i, c := range calls {
		a, _ := json.Marshal(c.args)
		half := len(a) / 2
		chunks = append(chunks,
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]},"finish_reason":null}]}`, i, c.id, c.name),
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]},"finish_reason":null}]}`, i, a[:half]),
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]},"finish_reason":null}]}`, i, a[half:]))
	}
	return sse(append(chunks, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)...)
}

func sseText(text string) func(http.ResponseWriter) {
	return sse(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":null}]}`, text),
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
}

func sse(chunks ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"local-model\",%s\n\n", strings.TrimPrefix(c, "{"))
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"local-model\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":7,\"total_tokens\":57}}\n\ndata: [DONE]\n\n")
	}
}

// runtimeWorkspace is an initialised workspace whose chat model is the
// fake server, a home with an SSH key, and the agent's sandbox off (these
// tests are about the commands; the sandboxed runs are the engine's and
// the terminal test's).
func runtimeWorkspace(t *testing.T, base string) (root, home string) {
	t.Helper()
	return agentWorkspace(t, "models:\n    - {name: local, provider: openai_compatible, model: local-model, base_url: "+base+"/v1}\n  roles: {chat: local}",
		"  sandbox: off\n  prices: {local-model: {input_per_mtok: 0, output_per_mtok: 0}}\n")
}

// agentWorkspace is an initialised workspace with config.yaml's llm:
// block set to llm (its lines below "llm:", indented) and its agent:
// block to agent (its lines, indented; "" for none), and a home with an
// SSH key.
func agentWorkspace(t *testing.T, llm, agent string) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	if _, err := pxworkspace.Init(context.Background(), root, pxworkspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("not a key, but restricted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "version: 1\npolicy: default\nllm:\n  " + llm + "\n"
	if agent != "" {
		cfg += "agent:\n" + agent
	}
	if err := os.WriteFile(pxworkspace.ConfigPath(root), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, home
}

func pxCmd(bin, root, home string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...) //nolint:gosec // built by the test
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	return cmd
}

type runEvent struct {
	Type, Tool, Decision, Rule, Text, Output string
	OK                                       *bool
}

func parseEvents(t *testing.T, out []byte) []runEvent {
	t.Helper()
	var evs []runEvent
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var ev runEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// The runtime through the real binary: parallax run --json against an
// OpenAI-compatible model on loopback (an engine started for the turn),
// then start --detach, status, run on the running engine, restart and
// stop; a model failure makes run exit non-zero; the chain verifies.
func TestRuntimeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildParallax(t)
	var root, home string
	fake := newFakeOpenAI(t)
	root, home = runtimeWorkspace(t, fake.srv.URL)
	out := filepath.Join(root, "hello.txt")
	fake.script(
		sseToolCall("call_w", "write_file", map[string]any{"path": out, "content": "hi\n"}),
		sseToolCall("call_k", "read_file", map[string]any{"path": "~/.ssh/id_rsa"}),
		sseText("Wrote the file; the key stays private."),
	)

	t.Run("run --json, engine for the turn", func(t *testing.T) {
		cmd := pxCmd(bin, root, home, "run", "--json", "write hello.txt, then read my key")
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("run: %v\n%s", err, stdout)
		}
		var got []string
		for _, ev := range parseEvents(t, stdout) {
			if ev.Type == "verdict" {
				got = append(got, ev.Tool+ev.Decision+":"+ev.Rule)
			}
		}
		if len(got) != 2 || !strings.HasPrefix(got[0], "ALLOW:") || got[1] != "BLOCK:guard_restricted" {
			t.Errorf("verdicts: got %v, want ALLOW then BLOCK:guard_restricted", got)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != "hi\n" {
			t.Errorf("hello.txt: %q, %v", b, err)
		}
		reqs := fake.requests()
		if len(reqs) != 3 {
			t.Fatalf("model requests: got %d, want 3", len(reqs))
		}
		tools := fmt.Sprint(reqs[0]["tools"])
		for _, name := range []string{"read_file", "execute_command", "load_tools"} {
			if !strings.Contains(tools, `name:`+name) {
				t.Errorf("tool %s not offered to the model: %s", name, tools)
			}
		}
		if last := fmt.Sprint(reqs[2]["messages"]); !strings.Contains(last, "by Parallax (guard_restricted)") {
			t.Errorf("the model did not get the gate's reason back: %s", last)
		}
		fake.mu.Lock()
		auth := append([]string(nil), fake.auth...)
		fake.mu.Unlock()
		for i, a := range auth {
			if a != "" {
				t.Errorf("request %d carried an Authorization header", i)
			}
		}
	})

	t.Run("a failing model fails the run", func(t *testing.T) {
		cmd := pxCmd(bin, root, home, "run", "--json", "again")
		stdout, err := cmd.Output()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() == 0 {
			t.Fatalf("run against a failing model: got %v, want a non-zero exit\n%s", err, stdout)
		}
		evs := parseEvents(t, stdout)
		if len(evs) == 0 || evs[len(evs)-1].Type != "error" {
			t.Errorf("last event: got %+v, want an error", evs)
		}
	})

	t.Run("detached engine", func(t *testing.T) {
		fake.script(sseText("Hello from the running engine."))
		if b, err := pxCmd(bin, root, home, "start", "--detach").CombinedOutput(); err != nil {
			t.Fatalf("start --detach: %v\n%s", err, b)
		}
		stopped := false
		defer func() {
			if !stopped {
				_ = pxCmd(bin, root, home, "stop").Run()
			}
		}()
		if b, err := pxCmd(bin, root, home, "start", "--detach").CombinedOutput(); err == nil || !strings.Contains(string(b), "already runs") {
			t.Errorf("second start: got %v, %s; want a refusal naming the running engine", err, b)
		}
		b, err := pxCmd(bin, root, home, "run", "hi").Output()
		if err != nil || strings.TrimSpace(string(b)) != "Hello from the running engine." {
			t.Errorf("run on the running engine: %q, %v", b, err)
		}
		st, err := pxCmd(bin, root, home, "status").Output()
		// Sessions are kept in the workspace database: the earlier one-turn
		// runs of this workspace are listed too.
		if err != nil || !strings.Contains(string(st), "sandbox    OFF") || !regexp.MustCompile(`sessions   [1-9]\d* `).Match(st) {
			t.Errorf("status: %v\n%s", err, st)
		}
		t.Run("chat", func(t *testing.T) { chatTurn(t, root, fake) })
		if b, err := pxCmd(bin, root, home, "restart").CombinedOutput(); err != nil || !strings.Contains(string(b), "engine restarted") {
			t.Errorf("restart: %v\n%s", err, b)
		}
		if b, err := pxCmd(bin, root, home, "stop").CombinedOutput(); err != nil {
			t.Fatalf("stop: %v\n%s", err, b)
		}
		stopped = true
		if err := pxCmd(bin, root, home, "status").Run(); err == nil {
			t.Error("status after stop: got success, want the engine reported not running")
		}
	})

	if _, err := pxworkspace.VerifyChain(root); err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	log, _ := os.ReadFile(engine.LogPath(root))
	if n := strings.Count(string(log), "parallax engine: pid"); n != 2 {
		t.Errorf("engine starts in the log: got %d, want 2 (start, restart)\n%s", n, log)
	}
}

// chatTurn drives the terminal chat (its keys from a pipe, its screen
// into a buffer) on the running engine: a message, its streamed reply,
// then /quit, which leaves the engine running.
func chatTurn(t *testing.T, root string, fake *fakeOpenAI) {
	fake.script(sseText("Hello from the chat turn."))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := engine.DialClient(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	watch, err := engine.DialClient(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	sub, err := watch.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	keys, typing := io.Pipe()
	var screen syncBuffer
	done := make(chan error, 1)
	go func() { done <- runChat(ctx, c, "", keys, &screen) }()
	if _, err := io.WriteString(typing, "hi from the chat\r"); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if rc := ev.GetResponseComplete(); rc != nil {
			if rc.GetText() != "Hello from the chat turn." {
				t.Errorf("reply: got %q", rc.GetText())
			}
			break
		}
		if e := ev.GetError(); e != nil {
			t.Fatalf("the chat's turn failed: %v", e)
		}
	}
	if _, err := io.WriteString(typing, "/quit\r"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("chat: %v", err)
	}
	if !strings.Contains(screen.String(), "Hello from the chat turn.") {
		t.Errorf("the reply never reached the screen:\n%s", screen.String())
	}
	if _, err := c.Status(ctx, &pb.StatusRequest{}); err != nil {
		t.Errorf("the engine did not survive the chat's /quit: %v", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
