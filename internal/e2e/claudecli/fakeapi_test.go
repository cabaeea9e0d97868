package claudecli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// post sends body to the fake and returns the response.
func post(t *testing.T, f *FakeAPI, path string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(f.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sse struct {
	name string
	data map[string]any
}

func readSSE(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var out []sse
	var cur sse
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data of %s: %v", cur.name, err)
			}
		case line == "":
			if cur.data["type"] != cur.name {
				t.Errorf("event %q carries type %v", cur.name, cur.data["type"])
			}
			out = append(out, cur)
			cur = sse{}
		}
	}
	return out
}

func userMsg(text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}
}

var someTools = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}

func TestFakeAPIStreamsScriptedToolUse(t *testing.T) {
	in := map[string]any{"command": "echo 'a \"quoted\" word'", "description": "x"}
	f := NewFakeAPI(t, Conversation{Turns: []Turn{{Text: "running", Tools: []ToolUse{{ID: "toolu_1", Name: "Bash", Input: in}}}}})
	resp := post(t, f, "/v1/messages", map[string]any{"model": "m", "stream": true, "tools": someTools, "messages": []any{userMsg("go")}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	evs := readSSE(t, resp.Body)
	var names []string
	var partial strings.Builder
	for _, e := range evs {
		names = append(names, e.name)
		if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			partial.WriteString(d["partial_json"].(string))
		}
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events\ngot  %s\nwant %s", got, want)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(partial.String()), &got); err != nil {
		t.Fatalf("joined input_json_delta %q: %v", partial.String(), err)
	}
	if got["command"] != in["command"] {
		t.Errorf("tool input %v, want %v", got, in)
	}
	md := evs[len(evs)-2].data["delta"].(map[string]any)
	if md["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", md["stop_reason"])
	}
	start := evs[0].data["message"].(map[string]any)
	if start["stop_reason"] != nil || start["id"] == "" {
		t.Errorf("message_start %v", start)
	}
}

func TestFakeAPIAnswersByConversationAndTurn(t *testing.T) {
	bash := func(cmd string) Turn {
		return Turn{Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": cmd}}}}
	}
	f := NewFakeAPI(t,
		Conversation{Match: "SUB", Turns: []Turn{bash("sub0")}, Final: "sub done"},
		Conversation{Turns: []Turn{bash("main0"), bash("main1")}},
	)
	ask := func(first string, assistants int) map[string]any {
		msgs := []any{userMsg(first)}
		for i := 0; i < assistants; i++ {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "x"}, userMsg("result"))
		}
		resp := post(t, f, "/v1/messages", map[string]any{"model": "m", "tools": someTools, "messages": msgs})
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	cmdOf := func(m map[string]any) string {
		for _, b := range m["content"].([]any) {
			if b := b.(map[string]any); b["type"] == "tool_use" {
				return b["input"].(map[string]any)["command"].(string)
			}
			if b := b.(map[string]any); b["type"] == "text" {
				return "text:" + b["text"].(string)
			}
		}
		return ""
	}
	for _, tc := range []struct {
		first      string
		assistants int
		want, stop string
	}{
		{"go", 1, "main1", "tool_use"},
		{"go", 0, "main0", "tool_use"},
		{"go", 0, "main0", "tool_use"}, // a retry gets the same answer
		{"do the SUB task", 0, "sub0", "tool_use"},
		{"do the SUB task", 1, "text:sub done", "end_turn"},
		{"go", 2, "text:done.", "end_turn"},
	} {
		m := ask(tc.first, tc.assistants)
		if got := cmdOf(m); got != tc.want || m["stop_reason"] != tc.stop {
			t.Errorf("%q after %d turns: got %s (%v), want %s (%s)", tc.first, tc.assistants, got, m["stop_reason"], tc.want, tc.stop)
		}
	}
	// Requests without tools (titles, summaries) get text and leave the
	// script alone.
	resp := post(t, f, "/v1/messages", map[string]any{"model": "m", "messages": []any{userMsg("title?")}})
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m["stop_reason"] != "end_turn" {
		t.Errorf("side request: %v", m)
	}
}

func TestFakeAPIOtherRoutes(t *testing.T) {
	f := NewFakeAPI(t)
	resp := post(t, f, "/v1/messages/count_tokens", map[string]any{"messages": []any{userMsg("hello")}})
	var ct map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || ct["input_tokens"] == nil {
		t.Errorf("count_tokens: %v %v", ct, err)
	}
	r2, err := http.Get(f.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	var ml struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(r2.Body).Decode(&ml); err != nil || len(ml.Data) == 0 {
		t.Errorf("models: %v %v", ml, err)
	}
	_ = post(t, f, "/v1/something/else", map[string]any{})
	if got := f.Unknown(); len(got) != 1 || got[0] != "POST /v1/something/else" {
		t.Errorf("unknown %v", got)
	}
	f.Page("/p", "<p>hi</p>")
	r3, err := http.Get(f.URL + "/p")
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Body.Close()
	if b, _ := io.ReadAll(r3.Body); string(b) != "<p>hi</p>" {
		t.Errorf("page %q", b)
	}
	if n := len(f.Requests()); n != 4 {
		t.Errorf("%d requests recorded, want 4", n)
	}
}

func TestFakeAPIFindsToolResults(t *testing.T) {
	f := NewFakeAPI(t)
	_ = post(t, f, "/v1/messages", map[string]any{"model": "m", "messages": []any{
		userMsg("go"),
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_9", "is_error": true,
			"content": []any{map[string]any{"type": "text", "text": "denied by hook"}}}}},
	}})
	r, ok := f.ToolResult("toolu_9")
	if !ok || !r.IsError || r.Text != "denied by hook" {
		t.Errorf("ToolResult = %+v, %v", r, ok)
	}
	if _, ok := f.ToolResult("toolu_nope"); ok {
		t.Error("found a result for an unknown id")
	}
}

// TestRunRealCLI drives the real CLI through one Bash call and checks
// that the fake saw its output come back and the dump hook saw the call.
func TestRunRealCLI(t *testing.T) {
	project := t.TempDir()
	events := DumpHooks(t, project)
	f := NewFakeAPI(t, Conversation{Turns: []Turn{{Tools: []ToolUse{{ID: "toolu_echo", Name: "Bash",
		Input: map[string]any{"command": "echo marker-$((6*7))", "description": "echo"}}}}}})
	res := Run(t, f, Options{Dir: project})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	r, ok := f.ToolResult("toolu_echo")
	if !ok || r.IsError || !strings.Contains(r.Text, "marker-42") {
		t.Errorf("tool result %+v, %v; want marker-42", r, ok)
	}
	var pre bool
	for _, ev := range Events(t, events) {
		pre = pre || (ev.Name == "PreToolUse" && ev.ToolUseID == "toolu_echo")
	}
	if !pre {
		t.Error("no PreToolUse hook call for toolu_echo")
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "settings.json")); err != nil {
		t.Error(err)
	}
}

// A turn's Before runs each time the turn is served, before the reply is
// written, and not for the other turns.
func TestFakeAPIRunsBeforeWhenTheTurnIsServed(t *testing.T) {
	ran := 0
	turn := Turn{Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": "true"}}}, Before: func() { ran++ }}
	f := NewFakeAPI(t, Conversation{Turns: []Turn{turn}})
	req := func(assistants int) {
		msgs := []any{userMsg("go")}
		for range assistants {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "x"}, userMsg("result"))
		}
		resp := post(t, f, "/v1/messages", map[string]any{"model": "m", "tools": someTools, "messages": msgs})
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
	}
	for i, tc := range []struct{ assistants, want int }{{0, 1}, {0, 2}, {1, 2}} {
		req(tc.assistants)
		if ran != tc.want {
			t.Errorf("request %d: Before ran %d times, want %d", i, ran, tc.want)
		}
	}
}
