package mcpproxy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTrustLiftsEscalationsOnly: a trusted tool (--trust-tool or a stored
// trust) passes its escalations, but a path in its arguments is still
// judged as a write there, and a BLOCK stays a BLOCK.
func TestTrustLiftsEscalationsOnly(t *testing.T) {
	for _, how := range []string{"flag", "stored"} {
		t.Run(how, func(t *testing.T) {
			ws := newWorkspace(t)
			var o options
			if how == "flag" {
				o.trust = []string{"echo"}
			}
			e := start(t, ws, o)
			if how == "stored" {
				e.tools() // pinned on first sight
				if _, err := Trust(context.Background(), e.pins, "px-testserver", "echo", fixedNow()); err != nil {
					t.Fatal(err)
				}
			}
			if got, isErr := e.call("echo", map[string]any{"text": "hello"}); isErr || !strings.Contains(got, "hello") {
				t.Fatalf("trusted echo: got %q (error %v), want it served", got, isErr)
			}
			for _, args := range []map[string]any{
				{"text": "~/.bashrc"},
				{"text": "/etc/cron.d/x"},
				{"text": "~/.ssh/authorized_keys"},
				// file URLs as a URL parser reads them: any case, one
				// slash, escapes, backslashes, a fragment.
				{"text": "FILE:///home/dev/.bashrc"},
				{"text": "file:/etc/cron.d/x"},
				{"text": "file:///home/dev/.ss%68/authorized_keys"},
				{"text": "file:///home/dev/.ssh%2fauthorized_keys"},
				{"text": "file:///home/dev/%2e%2e/dev/.bashrc"},
				{"text": "file:///home/dev/.ssh\\authorized_keys"},
				{"text": "file:///home/dev/.bashrc#x"},
				{"text": " file:///home/dev/.bashrc"},
				// relative paths under keys that name where a tool puts
				// something, at any depth
				{"text": "x", "destination": ".git/hooks/pre-commit"},
				{"text": "x", "opts": map[string]any{"target": ".claude/settings.json"}},
				{"text": "x", "outputs": []any{map[string]any{"output": ".git/config"}}},
			} {
				got, isErr := e.call("echo", args)
				if !isErr || strings.Contains(got, RuleTrustedTool) || !strings.Contains(got, "Blocked by Parallax") {
					t.Errorf("trusted echo %v: got %q (error %v), want a BLOCK", args, got, isErr)
				}
			}
			if s := e.served(); len(s) != 1 {
				t.Errorf("calls that reached the server: %v, want the first echo only", s)
			}
		})
	}
}

// TestStoredTrustVoidOnChange: a trust is for one definition.
func TestStoredTrustVoidOnChange(t *testing.T) {
	ctx := context.Background()
	pins := NewMemoryPins()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	tool := &mcp.Tool{Name: "t", Description: "one", InputSchema: map[string]any{"type": "object"}}
	h1, _ := ToolHash(tool)
	if _, err := Trust(ctx, pins, "s", "t", now); err == nil {
		t.Fatal("trusting an unpinned tool: want an error")
	}
	if err := pins.Update(ctx, "s", func(sp *ServerPins) error {
		decide(sp, []observed{{tool: tool, hash: h1}}, now, "s")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(ctx, pins, "s", "t", now); err != nil {
		t.Fatal(err)
	}
	pf, _ := pins.Load(ctx)
	if !pf.Trusted("s", "t", h1) {
		t.Fatal("trust not recorded")
	}
	changed := &mcp.Tool{Name: "t", Description: "two", InputSchema: map[string]any{"type": "object"}}
	h2, _ := ToolHash(changed)
	if pf.Trusted("s", "t", h2) {
		t.Error("trust holds for a changed definition")
	}
	// Held for review: it cannot be trusted until approved.
	if err := pins.Update(ctx, "s", func(sp *ServerPins) error {
		decide(sp, []observed{{tool: changed, hash: h2}}, now, "s")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(ctx, pins, "s", "t", now); err == nil || !strings.Contains(err.Error(), "pins approve") {
		t.Errorf("trusting a held tool: got %v, want a refusal naming pins approve", err)
	}
	if ok, err := Untrust(ctx, pins, "s", "t"); !ok || err != nil {
		t.Errorf("untrust: %v %v", ok, err)
	}
}

// TestLocalReadOnly: only a tool annotated read-only and explicitly not
// open-world, with no path or URL, is allowed by the proxy itself.
func TestLocalReadOnly(t *testing.T) {
	f, tr := false, true
	tests := []struct {
		name string
		tool *mcp.Tool
		args string
		want bool
	}{
		{"annotated local read-only", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}}, `{"message":"hi"}`, true},
		{"open world absent", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, `{"message":"hi"}`, false},
		{"open world", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &tr}}, `{}`, false},
		{"not read-only", &mcp.Tool{Annotations: &mcp.ToolAnnotations{OpenWorldHint: &f}}, `{}`, false},
		{"no annotations", &mcp.Tool{}, `{}`, false},
		// Mapping never judges looser than the name: annotations that
		// say read-only do not make a sender local.
		{"name says it sends", &mcp.Tool{Name: "send_message", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
			`{"channel":"general","text":"hi"}`, false},
		{"name says it deletes", &mcp.Tool{Name: "purgeAndDeleteAll", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
			`{}`, false},
		{"name says it reads", &mcp.Tool{Name: "get-sum", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}},
			`{"a":1,"b":2}`, true},
		{"url argument", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}}, `{"q":"https://x.example"}`, false},
		{"path argument", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}}, `{"q":"~/.aws/credentials"}`, false},
		{"schema takes a url", &mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"endpoint": map[string]any{"type": "string"}}}}, `{}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := factsOf(tt.tool)
			got := fa.localReadOnly() && !fa.schemaPaths && !hasURL([]byte(tt.args))
			if got != tt.want {
				t.Errorf("got %v, want %v (%s)", got, tt.want, fa.describe())
			}
		})
	}
}
