package llm

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Clock is the time source of retries: when a call started and how the
// pause between attempts is spent. Tests replace it. (Attempt timeouts
// use the runtime's timers: they must interrupt I/O.)
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, returning ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RetryPolicy bounds retries. Only retryable failures (429, 5xx, 408,
// timeouts, transport errors before an answer) are retried; a stream is
// never retried once it has delivered an event.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt. Default 4; 1 disables retries.
	MaxAttempts int
	// BaseDelay is the first backoff; it doubles per attempt. Default 500ms.
	BaseDelay time.Duration
	// MaxDelay caps the computed backoff (not a server's Retry-After).
	// Default 20s.
	MaxDelay time.Duration
	// MaxElapsed bounds the whole call, pauses included: no attempt starts
	// that would begin after it. Default 2m.
	MaxElapsed time.Duration
}

// DefaultRetryPolicy is the policy used when none is given.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 20 * time.Second, MaxElapsed: 2 * time.Minute}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = d.MaxElapsed
	}
	return p
}

// backoff is the pause after failed attempt n (1-based): exponential,
// capped, with "equal jitter" (half fixed, half random) so that clients
// failing together do not retry together. jitter is in [0, 1).
func (p RetryPolicy) backoff(n int, jitter float64) time.Duration {
	exp := float64(p.BaseDelay) * math.Pow(2, float64(n-1))
	d := time.Duration(math.Min(exp, float64(p.MaxDelay)))
	return d/2 + time.Duration(jitter*float64(d/2))
}

// maxRetryAfter bounds what a server can ask us to wait.
const maxRetryAfter = 10 * time.Minute

// retryAfter reads the headers that say when to retry: retry-after-ms
// (Anthropic, OpenAI), then Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return clampRetry(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return 0
		}
		return clampRetry(time.Duration(s * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return clampRetry(t.Sub(now))
	}
	return 0
}

func clampRetry(d time.Duration) time.Duration {
	if d > maxRetryAfter || d < 0 {
		return maxRetryAfter
	}
	return d
}

// errorBody is the union of the providers' error shapes:
// Anthropic {"type":"error","error":{"type","message"}}, OpenAI
// {"error":{"message","type","code"}}, Gemini {"error":{"code","message",
// "status","details":[…RetryInfo…]}}, Ollama {"error":"text"}, vLLM
// {"object":"error","message","type"}.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
}

type errorObject struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Details []struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// parseErrorBody extracts "type: message" and a Gemini retry delay from
// an error response. Text that is not JSON is returned as is (the
// caller sanitises and bounds it).
func parseErrorBody(body []byte) (detail string, delay time.Duration) {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		return string(body), 0
	}
	var obj errorObject
	var text string
	if len(eb.Error) > 0 && json.Unmarshal(eb.Error, &obj) != nil {
		_ = json.Unmarshal(eb.Error, &text) // Ollama: "error":"text"; anything else stays empty
	}
	kind := firstNonEmpty(obj.Type, obj.Status, eb.Type)
	msg := firstNonEmpty(obj.Message, text, eb.Message)
	for _, d := range obj.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				delay = clampRetry(v)
			}
		}
	}
	switch {
	case kind != "" && msg != "":
		return kind + ": " + msg, delay
	case msg != "":
		return msg, delay
	case kind != "":
		return kind, delay
	}
	return string(body), delay
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
