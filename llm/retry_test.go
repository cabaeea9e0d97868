package llm

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	p := DefaultRetryPolicy()
	cases := []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 250 * time.Millisecond},
		{1, 0.999999, 499999750 * time.Nanosecond},
		{2, 0.5, 750 * time.Millisecond},
		{3, 0, time.Second},
		{10, 0, 10 * time.Second}, // capped at MaxDelay 20s, half fixed
		{60, 1, 20 * time.Second},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n%d_j%g", c.n, c.jitter), func(t *testing.T) {
			expectEqual(t, "backoff", p.backoff(c.n, c.jitter), c.want)
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"ms wins", map[string]string{"Retry-After": "7", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
		{"date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"date past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"infinite", map[string]string{"Retry-After": "Inf"}, 0},
		{"huge clamped", map[string]string{"Retry-After": "99999999"}, maxRetryAfter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.h {
				h.Set(k, v)
			}
			expectEqual(t, "retry after", retryAfter(h, now), c.want)
		})
	}
}

func TestParseErrorBody(t *testing.T) {
	cases := []struct {
		name, body, want string
		delay            time.Duration
	}{
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error: Overloaded", 0},
		{"openai", `{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, "tokens: Rate limit reached", 0},
		{"gemini", `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12s"}]}}`, "RESOURCE_EXHAUSTED: quota", 12 * time.Second},
		{"ollama", `{"error":"model \"x\" not found"}`, `model "x" not found`, 0},
		{"vllm", `{"object":"error","message":"max_tokens too large","type":"BadRequestError","code":400}`, "BadRequestError: max_tokens too large", 0},
		{"html", `<html>502 Bad Gateway</html>`, `<html>502 Bad Gateway</html>`, 0},
		{"empty object", `{}`, `{}`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, delay := parseErrorBody([]byte(c.body))
			expectEqual(t, "detail", got, c.want)
			expectEqual(t, "delay", delay, c.delay)
		})
	}
}

func TestSanitize(t *testing.T) {
	long := strings.Repeat("é", 400)
	cases := []struct{ name, in, secret, want string }{
		{"secret", "bad key sk-1 here", "sk-1", "bad key [redacted] here"},
		{"controls", "a\x1b[31mb\nc\x00d", "", "a[31mb cd"},
		{"secret split by controls", "key s\x00k-1 end", "sk-1", "key [redacted] end"},
		{"secret at the cut", strings.Repeat("x", maxDetail-2) + "sk-1", "sk-1", strings.Repeat("x", maxDetail-2) + "[r…"},
		{"trim", "  x  ", "", "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectEqual(t, "sanitized", sanitize(c.in, c.secret), c.want)
		})
	}
	got := sanitize(long, "")
	if len(got) > maxDetail+len("…") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "éé") {
		t.Errorf("long text: got %d bytes %q…", len(got), got[:10])
	}
	if strings.ContainsRune(got, '\uFFFD') {
		t.Error("long text cut inside a rune")
	}
}

// TestRetryBudget: a Retry-After beyond the total budget ends the call
// at once instead of sleeping past it.
func TestRetryBudget(t *testing.T) {
	k := kits[1]
	p, ws, clock := setup(t, k, nil, reply{status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "600"}})
	_, err := p.Complete(context.Background(), helloRequest())
	e := asError(t, err)
	expectEqual(t, "kind", e.Kind, KindRateLimited)
	expectEqual(t, "retry after", e.RetryAfter, 10*time.Minute)
	expectEqual(t, "requests", len(ws.requests()), 1)
	expectEqual(t, "pauses", len(clock.pauses()), 0)
	if !strings.Contains(e.Error(), "budget") {
		t.Errorf("message %q does not say the budget ended it", e.Error())
	}
}

// TestRetryCallerDeadline: no pause is started that would outlive the
// caller's deadline.
func TestRetryCallerDeadline(t *testing.T) {
	k := kits[0]
	p, ws, clock := setup(t, k, nil, reply{status: 503, file: "error_500.json", header: map[string]string{"Retry-After": "30"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := p.Complete(ctx, helloRequest())
	expectEqual(t, "kind", asError(t, err).Kind, KindServer)
	expectEqual(t, "requests", len(ws.requests()), 1)
	expectEqual(t, "pauses", len(clock.pauses()), 0)
}

// TestRetryDisabled: MaxAttempts 1 sends once.
func TestRetryDisabled(t *testing.T) {
	k := kits[2]
	ws := newWireServer(t, k.name, false, reply{status: 500, file: "error_500.json"})
	pool, err := NewPool(Config{Models: []ModelConfig{{Name: "o", Provider: ProviderOllama, Model: "m", BaseURL: ws.srv.URL + "/v1"}}},
		Options{Retry: RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := pool.Model("o")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Complete(context.Background(), helloRequest())
	expectEqual(t, "kind", asError(t, err).Kind, KindServer)
	expectEqual(t, "requests", len(ws.requests()), 1)
}

// TestRealClockSleepCanceled: the real clock's pause ends with the
// context.
func TestRealClockSleepCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (realClock{}).Sleep(ctx, time.Hour); err == nil {
		t.Fatal("sleep with a canceled context: got nil, want an error")
	}
	if err := (realClock{}).Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("short sleep: %v", err)
	}
}

// TestStatusKind covers the status table.
func TestStatusKind(t *testing.T) {
	cases := []struct {
		code  int
		kind  Kind
		retry bool
	}{
		{400, KindRejected, false}, {401, KindAuth, false}, {403, KindAuth, false}, {404, KindRejected, false},
		{408, KindTimeout, true}, {409, KindRejected, false}, {429, KindRateLimited, true},
		{500, KindServer, true}, {502, KindServer, true}, {503, KindServer, true}, {529, KindServer, true},
		{302, KindRejected, false},
	}
	for _, c := range cases {
		k, r := statusKind(c.code)
		expectEqual(t, fmt.Sprintf("%d kind", c.code), k, c.kind)
		expectEqual(t, fmt.Sprintf("%d retry", c.code), r, c.retry)
	}
}

// TestRetryLogged: retries are logged with the model, kind, status and
// delay, and never with the key or the prompt.
func TestRetryLogged(t *testing.T) {
	k := kits[0]
	ws := newWireServer(t, k.name, false, reply{status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "2"}},
		reply{file: "text.json"})
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pool, err := NewPool(Config{Models: []ModelConfig{{Name: "m", Provider: ProviderAnthropic, Model: "claude-sonnet-4-5",
		APIKeyEnv: "ANTHROPIC_API_KEY", BaseURL: ws.srv.URL}}},
		Options{Getenv: testEnv, Clock: newFakeClock(), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := pool.Model("m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), helloRequest()); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{`"msg":"llm retry"`, `"kind":"rate_limited"`, `"status":429`, `"delay":2000000000`, `"msg":"llm call"`} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, testKey) || strings.Contains(out, "Hello") {
		t.Errorf("logs contain the key or the prompt:\n%s", out)
	}
}
