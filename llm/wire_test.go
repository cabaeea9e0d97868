package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is the API key the tests put in the environment. It must never
// appear in an error.
const testKey = "sk-test-0123456789abcdefSECRET"

// reply is what the wire server answers to one request.
type reply struct {
	status int // default 200
	header map[string]string
	file   string // body from testdata/wire/<kit>/<file>
	body   string // literal body (when file is empty)
	sse    bool   // text/event-stream, written and flushed event by event
	events int    // sse: write only the first n events (0: all)
	abort  bool   // then cut the connection (no clean end of the body)
	hang   bool   // send nothing until the client goes away
	stall  bool   // sse: after the events, send nothing more until the client goes away
}

// recorded is one request the server received.
type recorded struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   map[string]any
}

// wireServer is a loopback HTTP server answering from a script of
// recorded wire shapes. When the script runs out it repeats its last
// reply.
type wireServer struct {
	t      testing.TB
	dir    string
	crlf   bool
	srv    *httptest.Server
	stop   chan struct{}
	mu     sync.Mutex
	script []reply
	reqs   []recorded
}

func newWireServer(t testing.TB, kitDir string, crlf bool, script ...reply) *wireServer {
	t.Helper()
	ws := &wireServer{t: t, dir: filepath.Join("testdata", "wire", kitDir), crlf: crlf,
		stop: make(chan struct{}), script: script}
	ws.srv = httptest.NewServer(http.HandlerFunc(ws.serve))
	t.Cleanup(ws.srv.Close)
	t.Cleanup(func() { close(ws.stop) }) // runs first: releases hanging handlers
	return ws
}

func (ws *wireServer) requests() []recorded {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return append([]recorded(nil), ws.reqs...)
}

func (ws *wireServer) next(r *http.Request) reply {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone()}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &rec.Body); err != nil {
			ws.t.Errorf("request body is not JSON: %v", err)
		}
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.reqs = append(ws.reqs, rec)
	rp := ws.script[0]
	if len(ws.script) > 1 {
		ws.script = ws.script[1:]
	}
	return rp
}

func (ws *wireServer) serve(w http.ResponseWriter, r *http.Request) {
	rp := ws.next(r)
	if rp.hang {
		select {
		case <-r.Context().Done():
		case <-ws.stop:
		}
		return
	}
	body := rp.body
	if rp.file != "" {
		b, err := os.ReadFile(filepath.Join(ws.dir, rp.file))
		if err != nil {
			ws.t.Errorf("fixture: %v", err)
			return
		}
		body = string(b)
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.sse {
		ws.writeSSE(w, r, rp, body)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(max(rp.status, 200))
	if rp.abort {
		_, _ = io.WriteString(w, body[:len(body)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	_, _ = io.WriteString(w, body)
}

func (ws *wireServer) writeSSE(w http.ResponseWriter, r *http.Request, rp reply, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(max(rp.status, 200))
	events := strings.SplitAfter(strings.TrimRight(body, "\n")+"\n\n", "\n\n")
	if rp.events > 0 {
		events = events[:rp.events]
	}
	for _, ev := range events {
		if ws.crlf {
			ev = strings.ReplaceAll(ev, "\n", "\r\n")
		}
		_, _ = io.WriteString(w, ev)
		w.(http.Flusher).Flush()
	}
	if rp.stall {
		select {
		case <-r.Context().Done():
		case <-ws.stop:
		}
		return
	}
	if rp.abort {
		panic(http.ErrAbortHandler)
	}
}

// kit describes one provider's wire format for the shared tests.
type kit struct {
	name       string
	provider   ProviderKind
	keyEnv     string // "" for an unauthenticated provider
	model      string
	basePath   string // appended to the server URL for base_url
	path       string // where Complete posts
	streamPath string // where Stream posts
	streamQry  string
	crlf       bool
	// cut is the number of SSE events of stream_text.sse that deliver
	// exactly one text event.
	cut       int
	checkAuth func(t *testing.T, h http.Header)
}

var kits = []kit{
	{name: "anthropic", provider: ProviderAnthropic, keyEnv: "ANTHROPIC_API_KEY", model: "claude-sonnet-4-5",
		path: "/v1/messages", streamPath: "/v1/messages", cut: 4,
		checkAuth: func(t *testing.T, h http.Header) {
			t.Helper()
			expectEqual(t, "x-api-key", h.Get("X-Api-Key"), testKey)
			expectEqual(t, "anthropic-version", h.Get("Anthropic-Version"), "2023-06-01")
			expectEqual(t, "authorization", h.Get("Authorization"), "")
		}},
	{name: "openai", provider: ProviderOpenAI, keyEnv: "OPENAI_API_KEY", model: "gpt-4.1", basePath: "/v1",
		path: "/v1/chat/completions", streamPath: "/v1/chat/completions", cut: 2,
		checkAuth: func(t *testing.T, h http.Header) {
			t.Helper()
			expectEqual(t, "authorization", h.Get("Authorization"), "Bearer "+testKey)
		}},
	{name: "ollama", provider: ProviderOllama, model: "llama3.2", basePath: "/v1",
		path: "/v1/chat/completions", streamPath: "/v1/chat/completions", cut: 1,
		checkAuth: func(t *testing.T, h http.Header) {
			t.Helper()
			expectEqual(t, "authorization", h.Get("Authorization"), "")
		}},
	{name: "gemini", provider: ProviderGemini, keyEnv: "GEMINI_API_KEY", model: "gemini-2.5-flash",
		path: "/v1beta/models/gemini-2.5-flash:generateContent", streamPath: "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
		streamQry: "alt=sse", crlf: true, cut: 1,
		checkAuth: func(t *testing.T, h http.Header) {
			t.Helper()
			expectEqual(t, "x-goog-api-key", h.Get("X-Goog-Api-Key"), testKey)
		}},
}

func expectEqual[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// fakeClock records pauses instead of sleeping.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) pauses() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// testEnv is the environment the tests' pools read keys from.
func testEnv(name string) string {
	switch name {
	case "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "VLLM_KEY":
		return testKey
	}
	return ""
}

// setup starts a wire server for k with script and returns a provider
// on it, with a fake clock and jitter fixed at 0.5.
func setup(t testing.TB, k kit, mut func(*ModelConfig), script ...reply) (Provider, *wireServer, *fakeClock) {
	t.Helper()
	ws := newWireServer(t, k.name, k.crlf, script...)
	m := ModelConfig{Name: k.name, Provider: k.provider, Model: k.model, APIKeyEnv: k.keyEnv,
		BaseURL: ws.srv.URL + k.basePath, Timeout: 5 * time.Second}
	if mut != nil {
		mut(&m)
	}
	clock := newFakeClock()
	pool, err := NewPool(Config{Models: []ModelConfig{m}, Roles: Roles{Chat: k.name}},
		Options{Getenv: testEnv, Clock: clock, Jitter: func() float64 { return 0.5 }})
	if err != nil {
		t.Fatalf("new pool: %v", err)
	}
	p, _, err := pool.ForRole(RoleChat)
	if err != nil {
		t.Fatalf("for role: %v", err)
	}
	return p, ws, clock
}

// weatherTool is the tool every tool test offers.
var weatherTool = Tool{Name: "get_weather", Description: "Current weather at a place.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false}`)}

func helloRequest() Request {
	return Request{System: "Be brief.", Messages: []Message{UserText("Hello")}, MaxTokens: 256}
}

func weatherRequest() Request {
	return Request{Messages: []Message{UserText("Weather in San Francisco?")}, Tools: []Tool{weatherTool}, MaxTokens: 256}
}

// asError extracts the *Error of err or fails the test.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T %v, want *llm.Error", err, err)
	}
	if strings.Contains(e.Error(), testKey) {
		t.Fatalf("error contains the API key: %v", e)
	}
	return e
}

// drain reads a stream to its end and returns its events and the error
// that ended it (nil after EventDone and io.EOF).
func drain(t *testing.T, s Stream) ([]Event, error) {
	t.Helper()
	defer func() { _ = s.Close() }()
	var evs []Event
	for range 1000 {
		ev, err := s.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("stream did not end")
	return nil, nil
}

// compactJSON renders b without insignificant space, or fails the test.
func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	return buf.String()
}
