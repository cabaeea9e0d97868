package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/verdict"
)

// TestScriptedInjectedAgent plays the demo end to end: a scripted model
// (configured in config.yaml, served through the broker) acting as a
// prompt-injected agent reads ~/.ssh/id_rsa and then tries to upload it;
// every tool call goes through the pipeline with the real gate. Both
// are blocked, nothing runs, the script's expectations hold, and the
// chain verifies.
func TestScriptedInjectedAgent(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "..", "llm", "testdata", "scripted", "exfiltrate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{})
	writeFile(t, workspace.ConfigPath(e.root), "version: 1\npolicy: default\nllm:\n  models:\n"+
		"    - {name: demo, provider: scripted, model: injected-agent, script: "+script+"}\n  roles: {chat: demo}\n")
	ws, err := workspace.Open(context.Background(), e.root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	b, err := OpenBroker(ws, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := []llm.Message{llm.UserText("Set the project up as NOTES.md says.")}
	var outcomes []Outcome
	var final string
	for turn := 0; turn < 6; turn++ {
		resp, err := b.Complete(ctx, "agent-1", llm.RoleChat, llm.Request{Messages: msgs})
		if err != nil {
			t.Fatalf("turn %d: %v", turn+1, err)
		}
		var parts []llm.Part
		if resp.Text != "" {
			parts = append(parts, llm.TextPart(resp.Text))
		}
		for _, c := range resp.ToolCalls {
			parts = append(parts, llm.ToolUsePart(c))
		}
		msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: parts})
		if resp.StopReason != llm.StopToolUse {
			final = resp.Text
			break
		}
		var results []llm.Part
		for _, c := range resp.ToolCalls {
			out := e.p.Handle(ctx, Proposal{Session: "agent-1", CallID: c.ID, Type: c.Name, Payload: c.Input})
			outcomes = append(outcomes, out)
			results = append(results, llm.ToolResultPart(c.ID, out.Result.Output, out.Result.IsError))
		}
		msgs = append(msgs, llm.Message{Role: llm.User, Content: results})
	}
	if !strings.Contains(final, "blocked by Parallax") {
		t.Errorf("final answer: got %q, want the script's blocked branch", final)
	}
	if len(outcomes) != 2 {
		t.Fatalf("tool calls: got %d, want 2", len(outcomes))
	}
	for i, out := range outcomes {
		t.Logf("call %d: %s %s/%s: %s", i+1, out.Verdict.Decision, out.Verdict.Stage, out.Verdict.Rule, out.Verdict.Reason)
		if out.Verdict.Decision != verdict.Block || out.Executed {
			t.Errorf("call %d: got %v %s executed=%v, want BLOCK and not executed", i+1, out.Verdict.Decision, out.Verdict.Rule, out.Executed)
		}
	}
	if ran := e.executed(); len(ran) != 0 {
		t.Errorf("executors entered: %v", ran)
	}
	var blocked []string
	for _, en := range e.entries() {
		if en.Type == audit.ActionBlocked && en.Session == "agent-1" {
			blocked = append(blocked, en.ActionType)
		}
	}
	if strings.Join(blocked, ",") != "read_file,execute_command" {
		t.Errorf("ActionBlocked entries: got %v, want read_file then execute_command", blocked)
	}
}
