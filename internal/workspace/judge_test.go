package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// TestWorkspaceJudge: a workspace whose config names a shield model gets
// tier 2 in its gate, with its canary, and counts the budget in its
// database.
func TestWorkspaceJudge(t *testing.T) {
	var calls atomic.Int32
	canaryLine := regexp.MustCompile(`CANARY: (\S+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		m := canaryLine.FindStringSubmatch(req.Messages[0].Content)
		if m == nil {
			http.Error(w, "no canary", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "1", "object": "chat.completion", "model": "j",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{
				"role": "assistant", "content": "CANARY: " + m[1] + "\nDECISION: ALLOW\nREASON: compiles schemas"}}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
	}))
	defer srv.Close()
	root := t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{Policy: "default"}); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("version: 1\npolicy: default\nllm:\n  models:\n    - name: judge\n      provider: ollama\n      model: j\n      base_url: %s/v1\n  roles:\n    shield: judge\njudge:\n  daily_budget: 1\n", srv.URL)
	if err := os.WriteFile(ConfigPath(root), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	g, err := shield.New(w.GateConfig("/home/dev"))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(cmd string) verdict.Verdict {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return g.Evaluate(context.Background(), shield.Request{Session: "s1", Type: "execute_command", Payload: b})
	}
	if v := ask("protoc --go_out=. api.proto"); v.Decision != verdict.Allow || v.Stage != verdict.StageJudge {
		t.Fatalf("first escalation: got %v at %s (%s)", v.Decision, v.Stage, v.Reason)
	}
	if v := ask("protoc --go_out=. other.proto"); v.Decision != verdict.Escalate || !strings.Contains(v.Rule, "budget") {
		t.Errorf("over the daily budget of 1: got %v %s", v.Decision, v.Rule)
	}
	if calls.Load() != 1 {
		t.Errorf("model calls: %d, want 1", calls.Load())
	}
	if n, err := w.DB.Usage(context.Background(), w.DB.Now().UTC().Format("2006-01-02"), "judge_evaluations"); err != nil || n != 2 {
		t.Errorf("budget counted in the database: %d %v, want 2", n, err)
	}
}
