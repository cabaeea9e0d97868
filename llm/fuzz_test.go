package llm

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/anthropics/anthropic-sdk-go"
	assestream "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go"
	ossestream "github.com/openai/openai-go/packages/ssestream"
)

// seedWire adds every recorded SSE shape as a fuzz seed.
func seedWire(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "wire", "*", "*.sse"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("data: {}\n\n"))
	f.Add([]byte("data: [DONE]\r\r"))
}

func FuzzSSEReader(f *testing.F) {
	seedWire(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newSSEReader(bytes.NewReader(in))
		for n := 0; ; n++ {
			d, err := r.next()
			if err != nil {
				return
			}
			if len(d) > maxSSEEvent {
				t.Fatalf("event of %d bytes", len(d))
			}
			if n > len(in) {
				t.Fatal("more events than input bytes")
			}
		}
	})
}

// checkEvents drains src and checks the events' invariants: tool calls
// end with a JSON object input, done comes last.
func checkEvents(t *testing.T, src eventSource, limit int) {
	t.Helper()
	for n := 0; ; n++ {
		ev, err := src.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				t.Fatal("io.EOF before done")
			}
			return
		}
		if n > limit {
			t.Fatal("more events than input bytes")
		}
		switch ev.Kind {
		case EventToolEnd:
			if _, err := toolInput(string(ev.ToolCall.Input)); err != nil || len(ev.ToolCall.Input) == 0 || ev.ToolCall.ID == "" || ev.ToolCall.Name == "" {
				t.Fatalf("tool end %+v: want an id, a name and an object input", ev.ToolCall)
			}
		case EventDone:
			if _, err := src.next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after done: got %v, want io.EOF", err)
			}
			return
		case EventText, EventToolStart, EventToolDelta:
		default:
			t.Fatalf("event kind %d", ev.Kind)
		}
	}
}

func sseResponse(in []byte) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(in))}
}

func FuzzStreamConverters(f *testing.F) {
	seedWire(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		limit := len(in) + 1
		a := &anthropicStream{s: assestream.NewStream[anthropic.MessageStreamEventUnion](assestream.NewDecoder(sseResponse(in)), nil), blockTool: map[int64]int{}}
		checkEvents(t, a, limit)
		o := &openaiStream{s: ossestream.NewStream[openai.ChatCompletionChunk](ossestream.NewDecoder(sseResponse(in)), nil), byWire: map[int64]int{}}
		checkEvents(t, o, limit)
		g := &geminiStream{body: io.NopCloser(bytes.NewReader(in)), r: newSSEReader(bytes.NewReader(in))}
		checkEvents(t, g, limit)
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodConfig))
	f.Add([]byte("models: [{name: a, provider: ollama, model: m, base_url: 'http://[::1]:1/v1'}]\nroles: {chat: a}\n"))
	f.Add([]byte("models: [{name: a, provider: openai, model: m, api_key_env: K, base_url: 'https://x.example/v1'}]\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		cfg, err := ParseConfig("fuzz.yaml", in)
		if err != nil {
			if strings.Contains(err.Error(), "\x00") {
				t.Fatalf("error with a NUL: %q", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parsed config does not validate again: %v", err)
		}
		pool, err := NewPool(cfg, Options{Getenv: func(string) string { return "k" }})
		if err != nil {
			t.Fatalf("new pool: %v", err)
		}
		for _, m := range cfg.Models {
			ref := m.ref()
			ep, err := checkEndpoint(ref.BaseURL, m.APIKeyEnv != "")
			if err != nil {
				t.Fatalf("accepted base url %q fails the check: %v", ref.BaseURL, err)
			}
			if m.APIKeyEnv == "" && !ep.loopback {
				t.Fatalf("unauthenticated %q is not loopback", ref.BaseURL)
			}
			if _, _, err := pool.Model(m.Name); err != nil {
				t.Fatalf("model %q: %v", m.Name, err)
			}
		}
	})
}

func FuzzParseErrorBody(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "wire", "*", "error_*.json"))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b, "sk-x")
	}
	f.Fuzz(func(t *testing.T, body []byte, secret string) {
		detail, delay := parseErrorBody(body)
		if delay < 0 || delay > maxRetryAfter {
			t.Fatalf("delay %s out of range", delay)
		}
		s := sanitize(detail, secret)
		plain := secret != "" && strings.TrimSpace(secret) == secret && !strings.ContainsFunc(secret, unicode.IsControl) &&
			!strings.Contains("[redacted]…", secret) && !strings.Contains(secret, "[redacted]")
		if plain && strings.Contains(s, secret) {
			t.Fatalf("sanitized detail %q still holds the secret %q", s, secret)
		}
		if len(s) > maxDetail+len("…") {
			t.Fatalf("sanitized detail of %d bytes", len(s))
		}
	})
}
