package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// openAIJudge is a loopback server speaking OpenAI's chat completions
// wire format (as Ollama does): it answers every question with BLOCK,
// echoing the canary it finds in the system prompt.
func openAIJudge(t *testing.T) *httptest.Server {
	canaryLine := regexp.MustCompile(`CANARY: (\S+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		m := canaryLine.FindStringSubmatch(req.Messages[0].Content)
		if m == nil {
			http.Error(w, `{"error":{"message":"no canary"}}`, http.StatusBadRequest)
			return
		}
		answer := fmt.Sprintf("CANARY: %s\nDECISION: BLOCK\nREASON: scripted judge", m[1])
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "judge-test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": 400, "completion_tokens": 20, "total_tokens": 420},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestJudgeEval(t *testing.T) {
	srv := openAIJudge(t)
	dir := t.TempDir()
	models := filepath.Join(dir, "models.yaml")
	cfg := fmt.Sprintf("models:\n  - name: local\n    provider: ollama\n    model: judge-test\n    base_url: %s/v1\nroles:\n  shield: local\n", srv.URL)
	if err := os.WriteFile(models, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runParallax(t, "", "judge", "eval", "../../testdata/corpus/gtfobins", "--models", models)
	if err != nil {
		t.Fatalf("judge eval: %v\n%s", err, out)
	}
	for _, want := range []string{"judge: ollama/judge-test", "gtfobins", "model ollama/judge-test:", "tokens in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " 0 of ") {
		t.Errorf("no case was escalated:\n%s", out)
	}
}
