package claudecli

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ToolUse is one tool call a scripted model turn makes.
type ToolUse struct {
	ID    string // tool_use id; "toolu_<conversation>_<turn>_<n>" when empty
	Name  string // Bash, Read, Write, Agent, …
	Input any    // marshalled to the tool_use input object
}

// Turn is one assistant message of the script: optional text, then the
// tool calls. A turn without tool calls ends the conversation (end_turn).
// Before, when set, runs each time the turn is served, before its reply
// is sent: the test's move while the CLI waits for the model (the hooks
// of the turn's tool calls run after it).
type Turn struct {
	Text   string
	Tools  []ToolUse
	Before func()
}

// Conversation is the script of one agent loop. Match selects the
// conversations it answers: a substring of the text of the request's
// first user message ("" matches every request that carries tools).
// Requests are answered by their number of assistant messages: the n-th
// model call of a conversation gets Turns[n]; past the end it gets Final.
type Conversation struct {
	Match string
	Turns []Turn
	Final string // text of the closing end_turn answer; "done." when empty
}

// Request is one recorded request.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// FakeAPI is a loopback Anthropic Messages API. Create it with NewFakeAPI.
type FakeAPI struct {
	URL string // http://127.0.0.1:PORT, the CLI's ANTHROPIC_BASE_URL

	srv *httptest.Server
	tb  testing.TB

	mu       sync.Mutex
	convs    []Conversation
	requests []Request
	unknown  []string
	pages    map[string]string
	answered int
}

// Page serves body as text/html at GET path (for WebFetch to fetch).
func (f *FakeAPI) Page(path, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pages == nil {
		f.pages = map[string]string{}
	}
	f.pages[path] = body
}

// NewFakeAPI starts the server on 127.0.0.1 with the conversations tried
// in order (put the catch-all main conversation last). It is closed when
// the test ends.
func NewFakeAPI(tb testing.TB, convs ...Conversation) *FakeAPI {
	tb.Helper()
	f := &FakeAPI{convs: convs, tb: tb}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen on loopback: %v", err)
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	f.srv.Listener = l
	f.srv.Start()
	f.URL = f.srv.URL
	tb.Cleanup(f.srv.Close)
	return f
}

// SetScript replaces the conversations (for scripts that need f.URL).
func (f *FakeAPI) SetScript(convs ...Conversation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.convs = convs
}

// ServeTLS starts a second, HTTPS listener on 127.0.0.1 with the same
// handler (WebFetch upgrades http:// to https://) and writes its
// certificate to a PEM file. It returns the https base URL and the PEM
// path, for the CLI's NODE_EXTRA_CA_CERTS.
func (f *FakeAPI) ServeTLS(tb testing.TB) (baseURL, caFile string) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen on loopback: %v", err)
	}
	s := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	s.Listener = l
	s.StartTLS()
	tb.Cleanup(s.Close)
	caFile = filepath.Join(tb.TempDir(), "fake-ca.pem")
	block := &pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}
	if err := os.WriteFile(caFile, pem.EncodeToMemory(block), 0o600); err != nil {
		tb.Fatal(err)
	}
	return s.URL, caFile
}

// Requests is a copy of every request so far, in arrival order.
func (f *FakeAPI) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Unknown lists "METHOD PATH" of the requests the fake did not recognise.
func (f *FakeAPI) Unknown() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.unknown...)
}

// AllBodies is every request body joined, for "never sent" assertions.
func (f *FakeAPI) AllBodies() []byte {
	var b bytes.Buffer
	for _, r := range f.Requests() {
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func (f *FakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	f.mu.Unlock()

	f.mu.Lock()
	page, isPage := f.pages[r.URL.Path]
	f.mu.Unlock()
	switch p := r.URL.Path; {
	case isPage && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	case r.Method == http.MethodPost && p == "/v1/messages":
		f.messages(w, body)
	case r.Method == http.MethodPost && p == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/models"):
		writeJSON(w, modelList())
	case r.Method == http.MethodHead || (r.Method == http.MethodGet && (p == "/" || p == "")):
		w.WriteHeader(http.StatusOK)
	default:
		f.mu.Lock()
		f.unknown = append(f.unknown, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		f.tb.Logf("fake Anthropic API: unknown request %s %s", r.Method, r.URL.String())
		writeJSON(w, map[string]any{})
	}
}

func modelList() map[string]any {
	ids := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"}
	var data []map[string]any
	for _, id := range ids {
		data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
	}
	return map[string]any{"data": data, "has_more": false, "first_id": ids[0], "last_id": ids[len(ids)-1]}
}

// messagesRequest is the part of a Messages request the fake reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []Message         `json:"messages"`
}

func (f *FakeAPI) messages(w http.ResponseWriter, body []byte) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	blocks, stop, id := f.answer(&req)
	msg := map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
	if !req.Stream {
		msg["content"] = blocks
		writeJSON(w, msg)
		return
	}
	streamMessage(w, msg, blocks, stop)
}

// maxAnswers bounds the Messages requests one fake answers with its
// script: a CLI that loops (a script the conversation cannot follow) gets
// end_turn from then on instead of running to the test's deadline.
const maxAnswers = 200

// answer picks the reply to req: scripted turns for agent loops (requests
// that carry tools), a short text for side requests. It returns the
// content blocks, the stop reason and the message id: unique per
// conversation and turn, since the CLI merges assistant messages that
// share an id.
func (f *FakeAPI) answer(req *messagesRequest) ([]map[string]any, string, string) {
	f.mu.Lock()
	f.answered++
	over, convs := f.answered > maxAnswers, f.convs
	f.mu.Unlock()
	if over {
		f.tb.Errorf("fake Anthropic API: over %d Messages requests; the CLI is looping", maxAnswers)
		return []map[string]any{{"type": "text", "text": "stop."}}, "end_turn", fmt.Sprintf("msg_over_%d", f.answered)
	}
	if len(req.Tools) == 0 {
		return []map[string]any{{"type": "text", "text": "A side answer from the fake model."}}, "end_turn", fmt.Sprintf("msg_side_%d", len(req.Messages))
	}
	first := ""
	if len(req.Messages) > 0 {
		first = req.Messages[0].Text()
	}
	ci := -1
	for i, c := range convs {
		if strings.Contains(first, c.Match) {
			ci = i
			break
		}
	}
	if ci < 0 {
		return []map[string]any{{"type": "text", "text": "done."}}, "end_turn", "msg_nomatch"
	}
	c := convs[ci]
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	id := fmt.Sprintf("msg_c%d_t%d", ci, n)
	if n >= len(c.Turns) {
		final := c.Final
		if final == "" {
			final = "done."
		}
		return []map[string]any{{"type": "text", "text": final}}, "end_turn", id
	}
	t := c.Turns[n]
	if t.Before != nil {
		t.Before()
	}
	var blocks []map[string]any
	if t.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": t.Text})
	}
	for k, u := range t.Tools {
		id := u.ID
		if id == "" {
			id = fmt.Sprintf("toolu_c%d_t%d_%d", ci, n, k)
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": u.Name, "input": u.Input})
	}
	if len(t.Tools) == 0 {
		if len(blocks) == 0 {
			blocks = append(blocks, map[string]any{"type": "text", "text": "done."})
		}
		return blocks, "end_turn", id
	}
	return blocks, "tool_use", id
}

// streamMessage writes msg as the Messages API's event stream.
func streamMessage(w http.ResponseWriter, msg map[string]any, blocks []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	event(w, "message_start", map[string]any{"type": "message_start", "message": start})
	event(w, "ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			// Two deltas, as the real API splits the JSON anywhere.
			half := len(in) / 2
			for _, part := range []string{string(in[:half]), string(in[half:])} {
				event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

func event(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
