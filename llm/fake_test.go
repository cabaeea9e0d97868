package llm

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestFakeProviderScript(t *testing.T) {
	boom := errors.New("boom")
	call := ToolCall{ID: "c1", Name: "get_weather", Input: json.RawMessage(`{"location":"SF"}`)}
	f := NewFake(FakeReply("first"), FakeTurn{Err: boom},
		FakeTurn{Response: &Response{ToolCalls: []ToolCall{call}, StopReason: StopToolUse, Usage: Usage{InputTokens: 5, OutputTokens: 6}}})
	ctx := context.Background()

	resp, err := f.Complete(ctx, helloRequest())
	if err != nil {
		t.Fatalf("turn 1: %v", err)
	}
	expectEqual(t, "text", resp.Text, "first")
	expectEqual(t, "attempts", resp.Attempts, 1)

	if _, err := f.Complete(ctx, helloRequest()); !errors.Is(err, boom) {
		t.Errorf("turn 2: got %v, want boom", err)
	}

	s, err := f.Stream(ctx, weatherRequest())
	if err != nil {
		t.Fatalf("turn 3: %v", err)
	}
	got, err := Collect(s)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	expectEqual(t, "tool calls", len(got.ToolCalls), 1)
	expectEqual(t, "input", string(got.ToolCalls[0].Input), `{"location":"SF"}`)
	expectEqual(t, "usage", got.Usage, Usage{InputTokens: 5, OutputTokens: 6})

	if _, err := f.Complete(ctx, helloRequest()); !errors.Is(err, ErrScriptExhausted) {
		t.Errorf("beyond the script: got %v, want ErrScriptExhausted", err)
	}
	calls := f.Calls()
	expectEqual(t, "calls", len(calls), 4)
	expectEqual(t, "recorded system", calls[0].System, "Be brief.")
	expectEqual(t, "remaining", f.Remaining(), 0)
}

func TestFakeProviderStreamEvents(t *testing.T) {
	f := NewFake(FakeReply("a long enough answer"))
	s, err := f.Stream(context.Background(), helloRequest())
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(t, s)
	if err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "events", len(evs), 4) // 8+8+4 bytes of text, done
	expectEqual(t, "last", evs[3].Kind, EventDone)
}

func TestFakeProviderWait(t *testing.T) {
	gate := make(chan struct{})
	f := NewFake(FakeTurn{Wait: gate, Response: &Response{Text: "late"}}, FakeTurn{Wait: gate, Response: &Response{Text: "x"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := f.Complete(ctx, helloRequest())
	e := asError(t, err)
	expectEqual(t, "kind", e.Kind, KindCanceled)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("errors.Is(err, context.DeadlineExceeded): got false, want true")
	}
	close(gate)
	resp, err := f.Complete(context.Background(), helloRequest())
	if err != nil {
		t.Fatal(err)
	}
	expectEqual(t, "text", resp.Text, "x")
}

func TestFakeProviderValidates(t *testing.T) {
	f := NewFake(FakeReply("x"))
	_, err := f.Complete(context.Background(), Request{})
	expectEqual(t, "kind", asError(t, err).Kind, KindInvalid)
	expectEqual(t, "turn kept", f.Remaining(), 1)
	f.Push(FakeReply("y"))
	expectEqual(t, "pushed", f.Remaining(), 2)
}

func TestFakeStreamClosedEarly(t *testing.T) {
	f := NewFake(FakeReply("some text here"))
	s, err := f.Stream(context.Background(), helloRequest())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = s.Next()
	expectEqual(t, "kind", asError(t, err).Kind, KindCanceled)
}
