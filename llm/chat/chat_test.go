package chat

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// events is a Stream playing a fixed list of events.
type events struct {
	evs    []Event
	closed int
	err    error // returned by Close
}

func (s *events) Next() (Event, error) {
	if len(s.evs) == 0 {
		return Event{}, io.EOF
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}

func (s *events) Close() error {
	s.closed++
	return s.err
}

func TestCollect(t *testing.T) {
	call := ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}
	s := &events{evs: []Event{
		{Kind: EventText, Text: "Hel"}, {Kind: EventText, Text: "lo"},
		{Kind: EventToolStart, ToolCall: ToolCall{ID: "c1", Name: "read_file"}},
		{Kind: EventToolDelta, Delta: `{"path":"a"}`},
		{Kind: EventToolEnd, ToolCall: call},
		{Kind: EventDone, StopReason: StopToolUse, Usage: Usage{InputTokens: 3, OutputTokens: 2}, Model: "m", Attempts: 2},
	}}
	r, err := Collect(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "Hello" || len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != "c1" || r.StopReason != StopToolUse ||
		r.Usage != (Usage{InputTokens: 3, OutputTokens: 2}) || r.Model != "m" || r.Attempts != 2 {
		t.Errorf("got %+v", r)
	}
	if s.closed != 1 {
		t.Errorf("closed %d times, want 1", s.closed)
	}
}

func TestCollectFailsWithoutDone(t *testing.T) {
	s := &events{evs: []Event{{Kind: EventText, Text: "partial"}}}
	if r, err := Collect(s); err == nil {
		t.Fatalf("got %+v, nil; want an error", r)
	}
	if s.closed != 1 {
		t.Errorf("closed %d times, want 1", s.closed)
	}
}

func TestCollectFailsWhenCloseFails(t *testing.T) {
	boom := errors.New("close failed")
	s := &events{evs: []Event{{Kind: EventDone, StopReason: StopEnd}}, err: boom}
	if r, err := Collect(s); !errors.Is(err, boom) {
		t.Fatalf("got %+v, %v; want %v", r, err, boom)
	}
}

func TestEventKindString(t *testing.T) {
	cases := map[EventKind]string{EventText: "text", EventToolStart: "tool_start", EventToolDelta: "tool_delta",
		EventToolEnd: "tool_end", EventDone: "done", 99: "event(99)"}
	for k, want := range cases {
		if got := k.String(); got != want {
			t.Errorf("%d: got %q, want %q", uint8(k), got, want)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	use := func(id, in string) Part {
		return ToolUsePart(ToolCall{ID: id, Name: "t", Input: json.RawMessage(in)})
	}
	bad := map[string]struct {
		req  Request
		want string
	}{
		"no messages":          {Request{}, "no messages"},
		"negative max tokens":  {Request{Messages: []Message{UserText("x")}, MaxTokens: -1}, "negative"},
		"tool without name":    {Request{Messages: []Message{UserText("x")}, Tools: []Tool{{}}}, "tool 0 has no name"},
		"schema not an object": {Request{Messages: []Message{UserText("x")}, Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}}, "not a JSON object"},
		"schema of a string":   {Request{Messages: []Message{UserText("x")}, Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}}}, `want "object"`},
		"system role":          {Request{Messages: []Message{{Role: "system", Content: []Part{TextPart("x")}}}}, `role "system"`},
		"empty content":        {Request{Messages: []Message{{Role: User}}}, "no content"},
		"tool use from user":   {Request{Messages: []Message{{Role: User, Content: []Part{use("a", "")}}}}, "tool use in a user message"},
		"tool use without id":  {Request{Messages: []Message{{Role: Assistant, Content: []Part{use("", "")}}}}, "without id"},
		"tool input a string":  {Request{Messages: []Message{{Role: Assistant, Content: []Part{use("a", `"s"`)}}}}, "not a JSON object"},
		"result from assistant": {Request{Messages: []Message{{Role: Assistant, Content: []Part{use("a", "")}},
			{Role: Assistant, Content: []Part{ToolResultPart("a", "x", false)}}}}, "tool result in an assistant message"},
		"result without id": {Request{Messages: []Message{{Role: User, Content: []Part{ToolResultPart("", "x", false)}}}}, "without id"},
		"orphan result":     {Request{Messages: []Message{{Role: User, Content: []Part{ToolResultPart("a", "x", false)}}}}, "answers no earlier tool use"},
		"unknown part":      {Request{Messages: []Message{{Role: User, Content: []Part{{Kind: 9}}}}}, "unknown part kind 9"},
	}
	for name, c := range bad {
		t.Run(name, func(t *testing.T) {
			err := c.req.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	req := Request{
		System: "be terse",
		Messages: []Message{
			UserText("read a"),
			{Role: Assistant, Content: []Part{TextPart("reading"),
				ToolUsePart(ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)}),
				ToolUsePart(ToolCall{ID: "c2", Name: "list"})}},
			{Role: User, Content: []Part{ToolResultPart("c1", "text", false), ToolResultPart("c2", "no", true)}},
		},
		Tools: []Tool{{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "list"}},
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestToolInput(t *testing.T) {
	cases := []struct {
		raw, want string
		ok        bool
	}{
		{"", "{}", true},
		{"  \n", "{}", true},
		{` {"a":1} `, `{"a":1}`, true},
		{`[1]`, "", false},
		{`"s"`, "", false},
		{`null`, "", false},
		{`{"a":`, "", false},
	}
	for _, c := range cases {
		got, err := ToolInput(c.raw)
		if (err == nil) != c.ok || string(got) != c.want {
			t.Errorf("ToolInput(%q): got %s, %v; want %s (ok %v)", c.raw, got, err, c.want, c.ok)
		}
	}
}
