package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseInput(t *testing.T) {
	const ok = `{"session_id":"abc-123","transcript_path":"/t.jsonl","cwd":"/w/./src/","hook_event_name":"PreToolUse",` +
		`"tool_name":"Read","tool_input":{"file_path":"a"},"tool_use_id":"toolu_1","permission_mode":"default","future_field":{"x":1}}`
	in, err := ParseInput([]byte(ok))
	if err != nil {
		t.Fatalf("valid input: %v", err)
	}
	if in.Cwd != "/w/src" || in.SessionID != "abc-123" || in.ToolName != "Read" || string(in.ToolInput) != `{"file_path":"a"}` {
		t.Errorf("got %+v", in)
	}
	for _, c := range []struct{ name, input, want string }{
		{"empty", ``, "want a JSON object"},
		{"array", `[]`, "want a JSON object"},
		{"garbage", `{"session_id":`, "invalid JSON"},
		{"trailing", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read"} {}`, "trailing data"},
		{"duplicate key", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a","file_path":"/etc/shadow"}}`, "duplicate key"},
		{"no session", `{"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read"}`, "session_id is missing"},
		{"no event", `{"session_id":"s","cwd":"/w","tool_name":"Read"}`, "hook_event_name is missing"},
		{"no tool", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse"}`, "tool_name is missing"},
		{"relative cwd", `{"session_id":"s","cwd":"w","hook_event_name":"PreToolUse","tool_name":"Read"}`, "absolute"},
		{"no cwd", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read"}`, "absolute"},
		{"cwd control", `{"session_id":"s","cwd":"/w\n","hook_event_name":"PreToolUse","tool_name":"Read"}`, "control character"},
		{"session control", `{"session_id":"s\u001b[2J","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read"}`, "control character"},
		{"session C1", `{"session_id":"s\u0085","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read"}`, "control character"},
		{"long tool", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"` + strings.Repeat("x", 300) + `"}`, "longer than"},
		{"tool_input string", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm -rf /"}`, "tool_input must be a JSON object"},
		{"tool_input array", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":[1]}`, "tool_input must be a JSON object"},
		{"wrong type", `{"session_id":1,"cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Read"}`, "cannot unmarshal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseInput([]byte(c.input))
			if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrInput containing %q", err, c.want)
			}
		})
	}
}

func TestReadInputBound(t *testing.T) {
	big := bytes.Repeat([]byte(" "), MaxInputBytes+1)
	if _, err := ReadInput(bytes.NewReader(big)); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("got %v, want a size refusal", err)
	}
}

// FuzzParseInput: the parser never panics, and what it accepts holds its
// invariants and maps without panicking.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"a"},"tool_response":{"file":{"content":"x"}}}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"mcp__a__b","tool_input":{"x":[1,{"y":null}]}}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"a","edits":[{"old_string":"a","new_string":"b"}]}}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Glob","tool_input":{"pattern":"../../*"}}`,
		`{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Task","tool_input":null}`,
		`{}`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseInput(b)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error without ErrInput: %v", err)
			}
			return
		}
		if !filepath.IsAbs(in.Cwd) || in.SessionID == "" || in.ToolName == "" || in.HookEventName == "" {
			t.Fatalf("accepted input breaks the invariants: %+v", in)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(in.ToolInput, &obj) != nil {
			t.Fatalf("accepted tool_input is not an object: %s", in.ToolInput)
		}
		m, err := Map(in, Env{Home: "/home/dev", Workspace: "/w"})
		if err == nil && !m.Internal && len(m.Payload) == 0 {
			t.Fatalf("mapped %s without a payload", in.ToolName)
		}
		_ = ResponseText(in.ToolResponse)
	})
}
