package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/chronicle"
)

// panicAt is a fault seam that panics at one point of a call.
func panicAt(point string) func(string) {
	return func(p string) {
		if p == point {
			panic("injected fault at " + p)
		}
	}
}

// TestPreToolUsePanicDenies: a panic while a PreToolUse call is judged
// answers deny on stdout, never the empty answer Claude Code takes as
// "no objection". The calls would be allowed without the fault.
func TestPreToolUsePanicDenies(t *testing.T) {
	root, home := newWorkspace(t)
	writeFile(t, root+"/notes.txt", "meeting notes\n")
	tests := []struct {
		name  string
		opts  Options
		tool  string
		input any
	}{
		{"in the gate's call", Options{Home: home, fault: panicAt(faultPre)}, "Bash", map[string]any{"command": "go build ./..."}},
		{"in the gate's call, a read", Options{Home: home, fault: panicAt(faultPre)}, "Read", map[string]any{"file_path": "notes.txt"}},
		// The snapshot clock is Chronicle's own injected dependency.
		{"in the snapshot", Options{Home: home, Chronicle: chronicleWithPanickingClock()}, "Write",
			map[string]any{"file_path": "notes.txt", "content": "new notes\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := hookJSON(t, EventPreToolUse, "s1", root, tt.tool, tt.input, nil)
			var clean bytes.Buffer
			if err := Run(context.Background(), Options{Home: home}, bytes.NewReader(in), &clean); err != nil || clean.Len() != 0 {
				t.Fatalf("without the fault: got %q, %v; want no decision", clean.String(), err)
			}
			var stdout bytes.Buffer
			if err := Run(context.Background(), tt.opts, bytes.NewReader(in), &stdout); err != nil {
				t.Fatalf("got error %v, want a deny on stdout", err)
			}
			var r Response
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
				t.Fatalf("got stdout %q (%v), want a deny", stdout.String(), err)
			}
			if o := r.HookSpecificOutput; o.PermissionDecision != DecisionDeny || o.PermissionDecisionReason == "" {
				t.Errorf("got %+v, want deny with a reason", o)
			}
		})
	}
	t.Run("skill shell line", func(t *testing.T) {
		in := hookJSON(t, EventPreSkillShellCommand, "s1", root, "Bash", map[string]any{"command": "go build ./..."}, nil)
		var stdout bytes.Buffer
		err := Run(context.Background(), Options{Home: home, fault: panicAt(faultPre)}, bytes.NewReader(in), &stdout)
		if err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Errorf("got %v, want a refusal (exit status 2)", err)
		}
	})
}

// chronicleWithPanickingClock is Chronicle options whose clock panics.
func chronicleWithPanickingClock() (o chronicle.Options) {
	o.Now = func() time.Time { panic("injected snapshot clock fault") }
	return o
}

// TestPostToolUsePanicFails: a panic while a result is observed is an
// error (exit status 2), never a silent success; inside the
// classification, the session is then treated as having seen critical
// data, as for any result that could not be classified.
func TestPostToolUsePanicFails(t *testing.T) {
	root, home := newWorkspace(t)
	fetch := map[string]any{"url": "https://api.example.com/report", "prompt": "summarise"}
	tests := []struct {
		name, point string
		event       string
		critical    bool // the session is raised to critical
	}{
		{"before the workspace", faultPost, EventPostToolUse, false},
		{"in the classification", faultObserve, EventPostToolUse, true},
		{"failure result", faultObserve, EventPostToolUseFailure, true},
		{"batch", faultObserve, EventPostToolBatch, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			session := "s-post-" + string(rune('a'+i))
			var in []byte
			resp := map[string]any{"stdout": "build ok", "stderr": "", "interrupted": false, "isImage": false}
			switch tt.event {
			case EventPostToolBatch:
				m := map[string]any{"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": root,
					"permission_mode": "default", "hook_event_name": EventPostToolBatch,
					"tool_calls": []any{map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go build ./..."},
						"tool_use_id": "toolu_1", "tool_response": resp}}}
				in, _ = json.Marshal(m)
			case EventPostToolUseFailure:
				m := map[string]any{"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": root,
					"permission_mode": "default", "hook_event_name": tt.event, "tool_name": "Bash",
					"tool_input": map[string]any{"command": "go build ./..."}, "tool_use_id": "toolu_1", "error": "exit 1"}
				in, _ = json.Marshal(m)
			default:
				in = hookJSON(t, tt.event, session, root, "Bash", map[string]any{"command": "go build ./..."}, resp)
			}
			var stdout bytes.Buffer
			err := Run(context.Background(), Options{Home: home, fault: panicAt(tt.point)}, bytes.NewReader(in), &stdout)
			if err == nil {
				t.Fatalf("got no error, want exit status 2 (stdout %q)", stdout.String())
			}
			if !strings.Contains(err.Error(), "internal error") {
				t.Errorf("got %v, want it to name the internal error", err)
			}
			out := callPre(t, Options{Home: home}, root, session, "WebFetch", fetch)
			if tainted := out.Decision == DecisionDeny; tainted != tt.critical {
				t.Errorf("after the fault: got %+v, want the session critical: %v", out, tt.critical)
			}
		})
	}
}
