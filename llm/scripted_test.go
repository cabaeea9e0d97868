package llm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScriptErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"unknown top key", "turns: [{text: hi}]\nextra: 1\n", []string{"s.yaml", "extra"}},
		{"unknown turn key", "turns:\n  - text: hi\n  - text: yo\n    colour: red\n", []string{"s.yaml", "turn 2", "line 3", "colour"}},
		{"unknown call key", "turns:\n  - tool_calls: [{name: read_file, args: {}}]\n", []string{"turn 1", "args"}},
		{"unknown cond key", "turns:\n  - text: a\n    expect: {contains: x}\n", []string{"turn 1", "contains"}},
		{"empty turn", "turns:\n  - chunk: 3\n", []string{"turn 1", "needs text or tool_calls"}},
		{"call without name", "turns:\n  - tool_calls: [{input: {a: 1}}]\n", []string{"turn 1", "no name"}},
		{"negative chunk", "turns:\n  - {text: a, chunk: -1}\n", []string{"turn 1", "chunk"}},
		{"no turns", "turns: []\n", []string{"s.yaml", "no turns"}},
		{"empty file", "", []string{"s.yaml", "empty script"}},
		{"input not object", "turns:\n  - tool_calls: [{name: x, input: [1]}]\n", []string{"turn 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScript("s.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("got no error, want one containing %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func toolResultReq(content string, isErr bool) Request {
	call := ToolCall{ID: "c1", Name: "read_file", Input: []byte(`{}`)}
	return Request{Messages: []Message{UserText("go"),
		{Role: Assistant, Content: []Part{ToolUsePart(call)}},
		{Role: User, Content: []Part{ToolResultPart("c1", content, isErr)}}}}
}

func TestScriptedPlays(t *testing.T) {
	src := `{"turns": [
 {"text": "reading", "tool_calls": [{"name": "read_file", "input": {"path": "/w/a"}}]},
 {"when": {"tool_result_error": true}, "text": "it failed"},
 {"expect": {"tool_result_contains": "hello"}, "text": "it said hello", "usage": {"input_tokens": 7, "output_tokens": 3}}
]}`
	s, err := ParseScript("s.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := NewScripted("demo", s)
	ctx := context.Background()
	r, err := p.Complete(ctx, Request{Messages: []Message{UserText("start")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.StopReason != StopToolUse || len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read_file" ||
		string(r.ToolCalls[0].Input) != `{"path":"/w/a"}` || r.ToolCalls[0].ID == "" {
		t.Fatalf("turn 1: got %+v", r)
	}
	// The result is no error: turn 2's when fails, turn 3 is played.
	r, err = p.Complete(ctx, toolResultReq("hello world", false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "it said hello" || r.StopReason != StopEnd || r.Usage != (Usage{InputTokens: 7, OutputTokens: 3}) {
		t.Fatalf("turn 3: got %+v", r)
	}
	_, err = p.Complete(ctx, toolResultReq("x", false))
	if !errors.Is(err, ErrScriptEnd) {
		t.Fatalf("past the end: got %v, want ErrScriptEnd", err)
	}
}

func TestScriptedExpectFails(t *testing.T) {
	s, err := ParseScript("s.yaml", []byte("turns:\n  - text: a\n    expect: {tool_result_contains: Blocked}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewScripted("demo", s).Complete(context.Background(), toolResultReq("done", false))
	if !errors.Is(err, ErrScriptExpectation) || !strings.Contains(err.Error(), "turn 1") {
		t.Fatalf("got %v, want ErrScriptExpectation naming turn 1", err)
	}
}

func TestScriptedStreamChunks(t *testing.T) {
	s, err := ParseScript("s.yaml", []byte(`turns:
  - text: "abcdefghij"
    chunk: 4
    tool_calls: [{id: t1, name: write_file, input: {path: /w/x, content: hi}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewScripted("demo", s).Stream(context.Background(), Request{Messages: []Message{UserText("go")}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var kinds []EventKind
	for {
		ev, err := st.Next()
		if err != nil {
			break
		}
		kinds = append(kinds, ev.Kind)
		if ev.Kind == EventText {
			texts = append(texts, ev.Text)
		}
	}
	if got := strings.Join(texts, "|"); got != "abcd|efgh|ij" {
		t.Errorf("text pieces: got %q, want %q", got, "abcd|efgh|ij")
	}
	st2, _ := NewScripted("demo", s).Stream(context.Background(), Request{Messages: []Message{UserText("go")}})
	resp, err := Collect(st2)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "abcdefghij" || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "t1" || resp.StopReason != StopToolUse {
		t.Errorf("collected: got %+v", resp)
	}
	if kinds[len(kinds)-1] != EventDone {
		t.Errorf("last event: got %v, want done", kinds[len(kinds)-1])
	}
}

func TestScriptedInPool(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(script, []byte("turns:\n  - text: hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, yaml, wantErr string
	}{
		{"ok", "models:\n  - {name: demo, provider: scripted, model: m1, script: " + script + "}\nroles: {chat: demo}\n", ""},
		{"no script", "models:\n  - {name: demo, provider: scripted, model: m1}\n", "needs script"},
		{"key on scripted", "models:\n  - {name: demo, provider: scripted, model: m1, script: x, api_key_env: K}\n", "no api_key_env"},
		{"script on openai", "models:\n  - {name: demo, provider: openai, model: m1, script: x, api_key_env: K}\n", "only for provider scripted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig("config.yaml", []byte(c.yaml))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pool, err := NewPool(cfg, Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			prov, ref, err := pool.ForRole(RoleChat)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Provider != ProviderScripted {
				t.Errorf("provider: got %s, want scripted", ref.Provider)
			}
			r, err := prov.Complete(context.Background(), Request{Messages: []Message{UserText("hi")}})
			if err != nil || r.Text != "hello" {
				t.Fatalf("got %+v, %v; want hello", r, err)
			}
		})
	}
}

func TestExfiltrateDemoScriptParses(t *testing.T) {
	s, err := LoadScript(filepath.Join("testdata", "scripted", "exfiltrate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 4 {
		t.Fatalf("turns: got %d, want 4", len(s.Turns))
	}
}

// FuzzParseScript: any input parses or fails with an error naming the
// file; a script that parses plays its first turn without panicking.
func FuzzParseScript(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "scripted", "exfiltrate.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"turns":[{"text":"a","chunk":1}]}`))
	f.Add([]byte("turns:\n  - tool_calls: [{name: x, input: {a: [1, {b: null}]}}]\n    when: {tool_result_error: true}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		st, err := NewScripted("f", s).Stream(context.Background(), Request{Messages: []Message{UserText("go")}})
		if err == nil {
			_, _ = Collect(st)
		}
	})
}
