package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/parallax/parallax/llm"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func TestRequestRoundTrip(t *testing.T) {
	temp := 0.5
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"text only", llm.Request{System: "sys", Messages: []llm.Message{llm.UserText("hi")}, MaxTokens: 100}},
		{"tools and results", llm.Request{Temperature: &temp, StopSequences: []string{"END"},
			Messages: []llm.Message{
				llm.UserText("list"),
				{Role: llm.Assistant, Content: []llm.Part{llm.TextPart("ok"), llm.ToolUsePart(llm.ToolCall{ID: "c1", Name: "list_directory", Input: json.RawMessage(`{"path":"/w"}`)})}},
				{Role: llm.User, Content: []llm.Part{llm.ToolResultPart("c1", "a\nb", true)}},
			},
			Tools: []llm.Tool{{Name: "read_file", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Request("r1", "s1", tt.req)
			if p.GetSessionId() != "s1" || p.GetRequestId() != "r1" {
				t.Fatalf("ids: got %q %q", p.GetSessionId(), p.GetRequestId())
			}
			got, err := FromRequest(p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.req) {
				t.Errorf("got %+v, want %+v", got, tt.req)
			}
		})
	}
}

func TestFromRequestRefusesUnknownRole(t *testing.T) {
	_, err := FromRequest(&pb.LLMRequest{RequestId: "r9", Messages: []*pb.Message{{Role: pb.Role_ROLE_UNSPECIFIED}}})
	if err == nil {
		t.Fatal("got nil error for a message without a role")
	}
}

func TestChunkRoundTrip(t *testing.T) {
	events := []llm.Event{
		{Kind: llm.EventText, Text: "hello"},
		{Kind: llm.EventToolStart, Index: 1, ToolCall: llm.ToolCall{ID: "c", Name: "read_file"}},
		{Kind: llm.EventToolDelta, Index: 1, Delta: `{"pa`},
		{Kind: llm.EventToolEnd, Index: 1, ToolCall: llm.ToolCall{ID: "c", Name: "read_file", Input: json.RawMessage(`{"path":"/x"}`)}},
		{Kind: llm.EventDone, StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 3, OutputTokens: 4}, Model: "m"},
	}
	for _, ev := range events {
		t.Run(ev.Kind.String(), func(t *testing.T) {
			got, ok := FromChunk(Chunk("r", ev))
			if !ok || !reflect.DeepEqual(got, ev) {
				t.Errorf("got %+v (%v), want %+v", got, ok, ev)
			}
		})
	}
	if _, ok := FromChunk(ChunkError("r", "llm_error", "x", false)); ok {
		t.Error("an error chunk converted to an event")
	}
}

func TestStopReasons(t *testing.T) {
	for _, e := range stops {
		if got := FromStop(Stop(e.l)); got != e.l {
			t.Errorf("got %v, want %v", got, e.l)
		}
	}
	if got := Stop("weird"); got != pb.StopReason_STOP_REASON_OTHER {
		t.Errorf("unknown stop: got %v, want OTHER", got)
	}
}
