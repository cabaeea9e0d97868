package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The tests in this file run every provider's real client (the official
// SDKs, or our Gemini client) against a loopback server speaking that
// provider's wire format.

const helloText = "Hello! How can I help you today?"

var wantUsage = map[string]Usage{
	"anthropic": {InputTokens: 16, OutputTokens: 10}, // 12 + 4 read from the cache
	"openai":    {InputTokens: 19, OutputTokens: 10},
	"ollama":    {InputTokens: 31, OutputTokens: 10},
	"gemini":    {InputTokens: 8, OutputTokens: 22}, // 9 + 13 thinking
}

var wantModel = map[string]string{
	"anthropic": "claude-sonnet-4-5-20250929", "openai": "gpt-4.1-2025-04-14",
	"ollama": "llama3.2", "gemini": "gemini-2.5-flash",
}

func TestCompleteText(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "text.json"})
			resp, err := p.Complete(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "text", resp.Text, helloText)
			expectEqual(t, "stop", resp.StopReason, StopEnd)
			expectEqual(t, "usage", resp.Usage, wantUsage[k.name])
			expectEqual(t, "model", resp.Model, wantModel[k.name])
			expectEqual(t, "attempts", resp.Attempts, 1)
			reqs := ws.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests: got %d, want 1", len(reqs))
			}
			r := reqs[0]
			expectEqual(t, "method", r.Method, "POST")
			expectEqual(t, "path", r.Path, k.path)
			expectEqual(t, "query", r.RawQuery, "")
			k.checkAuth(t, r.Header)
			if k.provider != ProviderGemini {
				expectEqual(t, "model in body", r.Body["model"], any(k.model))
			}
		})
	}
}

func TestCompleteToolCall(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, _, _ := setup(t, k, nil, reply{file: "tool.json"})
			resp, err := p.Complete(context.Background(), weatherRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "stop", resp.StopReason, StopToolUse)
			if len(resp.ToolCalls) != 1 {
				t.Fatalf("tool calls: got %d, want 1", len(resp.ToolCalls))
			}
			tc := resp.ToolCalls[0]
			expectEqual(t, "name", tc.Name, "get_weather")
			if tc.ID == "" {
				t.Error("tool call has no id")
			}
			expectEqual(t, "input", compactJSON(t, tc.Input), `{"location":"San Francisco, CA","unit":"celsius"}`)
		})
	}
}

func TestStreamText(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "stream_text.sse", sse: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			evs, err := drain(t, s)
			if err != nil {
				t.Fatalf("drain: %v", err)
			}
			var text strings.Builder
			texts := 0
			for _, ev := range evs[:len(evs)-1] {
				expectEqual(t, "event kind", ev.Kind, EventText)
				text.WriteString(ev.Text)
				texts++
			}
			expectEqual(t, "text", text.String(), helloText)
			expectEqual(t, "text events", texts, 3)
			done := evs[len(evs)-1]
			expectEqual(t, "last event", done.Kind, EventDone)
			expectEqual(t, "stop", done.StopReason, StopEnd)
			expectEqual(t, "usage", done.Usage, wantUsage[k.name])
			r := ws.requests()[0]
			expectEqual(t, "path", r.Path, k.streamPath)
			expectEqual(t, "query", r.RawQuery, k.streamQry)
			k.checkAuth(t, r.Header)
			switch k.provider {
			case ProviderGemini:
			case ProviderAnthropic:
				expectEqual(t, "stream flag", r.Body["stream"], any(true))
			default:
				expectEqual(t, "stream flag", r.Body["stream"], any(true))
				expectEqual(t, "stream_options", fmt.Sprint(r.Body["stream_options"]), "map[include_usage:true]")
			}
		})
	}
}

func TestStreamToolCall(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, _, _ := setup(t, k, nil, reply{file: "stream_tool.sse", sse: true})
			s, err := p.Stream(context.Background(), weatherRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			evs, err := drain(t, s)
			if err != nil {
				t.Fatalf("drain: %v", err)
			}
			var kinds []string
			var args strings.Builder
			var end ToolCall
			for _, ev := range evs {
				if len(kinds) == 0 || kinds[len(kinds)-1] != ev.Kind.String() {
					kinds = append(kinds, ev.Kind.String())
				}
				switch ev.Kind {
				case EventToolDelta:
					args.WriteString(ev.Delta)
				case EventToolEnd:
					end = ev.ToolCall
				}
			}
			expectEqual(t, "event sequence", strings.Join(kinds, ","), "text,tool_start,tool_delta,tool_end,done")
			want := `{"location":"San Francisco, CA","unit":"celsius"}`
			expectEqual(t, "deltas joined", compactJSON(t, []byte(args.String())), want)
			expectEqual(t, "end input", compactJSON(t, end.Input), want)
			expectEqual(t, "end name", end.Name, "get_weather")
			expectEqual(t, "stop", evs[len(evs)-1].StopReason, StopToolUse)
		})
	}
}

func TestStreamCollect(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, _, _ := setup(t, k, nil, reply{file: "stream_tool.sse", sse: true})
			s, err := p.Stream(context.Background(), weatherRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			resp, err := Collect(s)
			if err != nil {
				t.Fatalf("collect: %v", err)
			}
			expectEqual(t, "text", resp.Text, "I'll check the weather.")
			expectEqual(t, "tool calls", len(resp.ToolCalls), 1)
			expectEqual(t, "stop", resp.StopReason, StopToolUse)
			if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
				t.Errorf("usage: got %+v, want both counts", resp.Usage)
			}
		})
	}
}

func TestRetryAfter429(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, clock := setup(t, k, nil,
				reply{status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "7"}},
				reply{file: "text.json"})
			resp, err := p.Complete(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "attempts", resp.Attempts, 2)
			expectEqual(t, "requests", len(ws.requests()), 2)
			expectEqual(t, "pauses", fmt.Sprint(clock.pauses()), "[7s]")
		})
	}
}

func TestRetry500ThenSuccess(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, clock := setup(t, k, nil, reply{status: 500, file: "error_500.json"}, reply{file: "text.json"})
			resp, err := p.Complete(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "text", resp.Text, helloText)
			expectEqual(t, "attempts", resp.Attempts, 2)
			expectEqual(t, "requests", len(ws.requests()), 2)
			// base 500ms, jitter 0.5: 250ms + 125ms
			expectEqual(t, "pauses", fmt.Sprint(clock.pauses()), "[375ms]")
		})
	}
}

func TestRetry500Forever(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, clock := setup(t, k, nil, reply{status: 500, file: "error_500.json"})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindServer)
			expectEqual(t, "status", e.StatusCode, 500)
			expectEqual(t, "attempts", e.Attempts, 4)
			expectEqual(t, "requests", len(ws.requests()), 4)
			expectEqual(t, "pauses", fmt.Sprint(clock.pauses()), "[375ms 750ms 1.5s]")
			if !strings.Contains(e.Error(), "status 500") || !strings.Contains(e.Error(), "after 4 attempts") {
				t.Errorf("message %q lacks the status or the attempts", e.Error())
			}
		})
	}
}

func TestStreamRetriedBeforeStart(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil,
				reply{status: 429, file: "error_429.json", header: map[string]string{"Retry-After": "1"}},
				reply{status: 503, body: "upstream connect error"},
				reply{file: "stream_text.sse", sse: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			resp, err := Collect(s)
			if err != nil {
				t.Fatalf("collect: %v", err)
			}
			expectEqual(t, "text", resp.Text, helloText)
			expectEqual(t, "attempts", resp.Attempts, 3)
			expectEqual(t, "requests", len(ws.requests()), 3)
		})
	}
}

func TestMalformedJSON(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{body: `{"id": "x", "content": [`})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindMalformed)
			expectEqual(t, "retryable", e.Retryable, false)
			expectEqual(t, "requests", len(ws.requests()), 1)
		})
	}
}

func TestMalformedStream(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "stream_malformed.sse", sse: true})
			_, err := p.Stream(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindMalformed)
			expectEqual(t, "requests", len(ws.requests()), 1)
		})
	}
}

func TestStreamCut(t *testing.T) {
	for _, k := range kits {
		for _, abort := range []bool{true, false} {
			name := k.name + "/clean_end"
			if abort {
				name = k.name + "/connection_cut"
			}
			t.Run(name, func(t *testing.T) {
				p, ws, _ := setup(t, k, nil, reply{file: "stream_text.sse", sse: true, events: k.cut, abort: abort})
				s, err := p.Stream(context.Background(), helloRequest())
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				evs, err := drain(t, s)
				expectEqual(t, "events before the cut", len(evs), 1)
				e := asError(t, err)
				expectEqual(t, "kind", e.Kind, KindStreamBroken)
				expectEqual(t, "requests (no retry after start)", len(ws.requests()), 1)
			})
		}
	}
}

func TestStreamErrorEvent(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "stream_error.sse", sse: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			evs, err := drain(t, s)
			expectEqual(t, "events before the error", len(evs), 1)
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindServer)
			expectEqual(t, "requests", len(ws.requests()), 1)
		})
	}
}

func TestCompleteConnectionCut(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "text.json", abort: true}, reply{file: "text.json"})
			resp, err := p.Complete(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "attempts", resp.Attempts, 2)
			expectEqual(t, "requests", len(ws.requests()), 2)
		})
	}
}

func TestTimeout(t *testing.T) {
	short := func(m *ModelConfig) { m.Timeout = 100 * time.Millisecond }
	for _, k := range kits {
		t.Run(k.name+"/complete", func(t *testing.T) {
			p, ws, _ := setup(t, k, short, reply{hang: true}, reply{hang: true}, reply{file: "text.json"})
			resp, err := p.Complete(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("complete: %v", err)
			}
			expectEqual(t, "attempts", resp.Attempts, 3)
			expectEqual(t, "requests", len(ws.requests()), 3)
		})
		t.Run(k.name+"/complete_forever", func(t *testing.T) {
			p, ws, _ := setup(t, k, short, reply{hang: true})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindTimeout)
			expectEqual(t, "requests", len(ws.requests()), 4)
		})
		t.Run(k.name+"/stream", func(t *testing.T) {
			p, ws, _ := setup(t, k, short, reply{hang: true}, reply{file: "stream_text.sse", sse: true})
			s, err := p.Stream(context.Background(), helloRequest())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if _, err := Collect(s); err != nil {
				t.Fatalf("collect: %v", err)
			}
			expectEqual(t, "requests", len(ws.requests()), 2)
		})
	}
}

func TestContextCancel(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{hang: true})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for len(ws.requests()) == 0 {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			_, err := p.Complete(ctx, helloRequest()) // the server hangs: only the cancel ends this
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindCanceled)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("errors.Is(err, context.Canceled): got false, want true")
			}
			expectEqual(t, "requests", len(ws.requests()), 1)
		})
	}
}

func TestAuthError(t *testing.T) {
	for _, k := range kits {
		if k.keyEnv == "" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			status := 401
			if k.provider == ProviderGemini {
				status = 400 // Gemini answers a bad key with 400 API_KEY_INVALID
			}
			p, ws, _ := setup(t, k, nil, reply{status: status, file: "error_auth.json"})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindAuth)
			expectEqual(t, "retryable", e.Retryable, false)
			expectEqual(t, "requests", len(ws.requests()), 1)
			if !strings.Contains(e.Error(), "$"+k.keyEnv) {
				t.Errorf("message %q does not name $%s", e.Error(), k.keyEnv)
			}
		})
	}
}

// TestKeyEchoedByServer: a server that echoes the key in its error must
// not get it into our error.
func TestKeyEchoedByServer(t *testing.T) {
	for _, k := range kits {
		if k.keyEnv == "" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			body := `{"error":{"type":"invalid_request_error","message":"bad key ` + testKey + ` rejected"}}`
			p, _, _ := setup(t, k, nil, reply{status: 403, body: body})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err) // fails on the key
			if !strings.Contains(e.Detail, "[redacted]") {
				t.Errorf("detail %q: want the key replaced by [redacted]", e.Detail)
			}
		})
	}
}

func TestRejectedNotRetried(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{status: 400, body: `{"error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindRejected)
			expectEqual(t, "requests", len(ws.requests()), 1)
			if !strings.Contains(e.Detail, "max_tokens: too large") {
				t.Errorf("detail %q lacks the server's message", e.Detail)
			}
		})
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			other := newWireServer(t, k.name, k.crlf, reply{file: "text.json"})
			p, ws, _ := setup(t, k, nil, reply{status: 307, header: map[string]string{"Location": other.srv.URL + k.path}})
			_, err := p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindRejected)
			expectEqual(t, "requests", len(ws.requests()), 1)
			expectEqual(t, "requests at the redirect target", len(other.requests()), 0)
		})
	}
}

func TestResponseTooLarge(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			ws := newWireServer(t, k.name, k.crlf, reply{file: "text.json"})
			m := ModelConfig{Name: k.name, Provider: k.provider, Model: k.model, APIKeyEnv: k.keyEnv, BaseURL: ws.srv.URL + k.basePath}
			pool, err := NewPool(Config{Models: []ModelConfig{m}}, Options{Getenv: testEnv, MaxResponseBytes: 64})
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := pool.Model(k.name)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), helloRequest())
			e := asError(t, err)
			expectEqual(t, "kind", e.Kind, KindMalformed)
			expectEqual(t, "requests", len(ws.requests()), 1)
		})
	}
}
