package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// FakeTurn is one scripted answer of a FakeProvider.
type FakeTurn struct {
	// Response is returned (a copy) when Err is nil.
	Response *Response
	// Err is returned instead of a response.
	Err error
	// Wait, when set, blocks the call until it is closed or the call's
	// context ends (for tests of timeouts and cancellation).
	Wait <-chan struct{}
}

// FakeReply is a turn answering text with StopEnd.
func FakeReply(text string) FakeTurn {
	return FakeTurn{Response: &Response{Text: text, StopReason: StopEnd, Model: "fake",
		Usage: Usage{InputTokens: 10, OutputTokens: int64(len(text)+3) / 4}}}
}

// ErrScriptExhausted is returned by a FakeProvider called more often
// than it has turns.
var ErrScriptExhausted = errors.New("fake provider: no scripted turn left")

// FakeProvider is a Provider that plays a script, for other packages'
// tests: each call (Complete or Stream) takes the next turn and records
// the request. It fails closed: a call beyond the script is an error.
type FakeProvider struct {
	mu    sync.Mutex
	turns []FakeTurn
	calls []Request
}

var _ Provider = (*FakeProvider)(nil)

// NewFake returns a provider playing turns in order.
func NewFake(turns ...FakeTurn) *FakeProvider {
	return &FakeProvider{turns: append([]FakeTurn(nil), turns...)}
}

// Push appends turns to the script.
func (f *FakeProvider) Push(turns ...FakeTurn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns = append(f.turns, turns...)
}

// Calls returns the requests received so far.
func (f *FakeProvider) Calls() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.calls...)
}

// Remaining is the number of turns not yet played.
func (f *FakeProvider) Remaining() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.turns)
}

func (f *FakeProvider) take(ctx context.Context, req Request) (*Response, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: KindInvalid, Model: "fake", Detail: err.Error()}
	}
	f.mu.Lock()
	f.calls = append(f.calls, req)
	if len(f.turns) == 0 {
		f.mu.Unlock()
		return nil, ErrScriptExhausted
	}
	t := f.turns[0]
	f.turns = f.turns[1:]
	f.mu.Unlock()
	if t.Wait != nil {
		select {
		case <-t.Wait:
		case <-ctx.Done():
			return nil, &Error{Kind: KindCanceled, Model: "fake", Detail: ctx.Err().Error(), err: ctx.Err()}
		}
	}
	if t.Err != nil {
		return nil, t.Err
	}
	if t.Response == nil {
		return nil, fmt.Errorf("fake provider: turn %d has neither a response nor an error", len(f.Calls()))
	}
	r := *t.Response
	r.ToolCalls = append([]ToolCall(nil), t.Response.ToolCalls...)
	if r.Attempts == 0 {
		r.Attempts = 1
	}
	return &r, nil
}

// Complete plays the next turn.
func (f *FakeProvider) Complete(ctx context.Context, req Request) (*Response, error) {
	return f.take(ctx, req)
}

// Stream plays the next turn as events: the text in pieces of up to 8
// bytes, each tool call as start, its input in two deltas, end.
func (f *FakeProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	r, err := f.take(ctx, req)
	if err != nil {
		return nil, err
	}
	return &fakeStream{events: fakeEvents(r)}, nil
}

func fakeEvents(r *Response) []Event {
	var evs []Event
	for s := r.Text; s != ""; {
		n := min(8, len(s))
		evs = append(evs, Event{Kind: EventText, Text: s[:n]})
		s = s[n:]
	}
	for i, tc := range r.ToolCalls {
		in := string(tc.Input)
		half := len(in) / 2
		evs = append(evs, Event{Kind: EventToolStart, Index: i, ToolCall: ToolCall{ID: tc.ID, Name: tc.Name}},
			Event{Kind: EventToolDelta, Index: i, Delta: in[:half]},
			Event{Kind: EventToolDelta, Index: i, Delta: in[half:]},
			Event{Kind: EventToolEnd, Index: i, ToolCall: tc})
	}
	return append(evs, Event{Kind: EventDone, StopReason: r.StopReason, Usage: r.Usage, Model: r.Model, Attempts: r.Attempts})
}

type fakeStream struct {
	mu     sync.Mutex
	events []Event
	closed bool
}

func (s *fakeStream) Next() (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Event{}, &Error{Kind: KindCanceled, Model: "fake", Detail: "stream closed", err: context.Canceled}
	}
	if len(s.events) == 0 {
		return Event{}, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *fakeStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.events) > 0 {
		s.closed = true
	}
	return nil
}
