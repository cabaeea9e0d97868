package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/parallax/parallax/llm/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func TestRequestRoundTrip(t *testing.T) {
	temp := 0.5
	tests := []struct {
		name string
		req  chat.Request
	}{
		{"text only", chat.Request{System: "sys", Messages: []chat.Message{chat.UserText("hi")}, MaxTokens: 100}},
		{"tools and results", chat.Request{Temperature: &temp, StopSequences: []string{"END"},
			Messages: []chat.Message{
				chat.UserText("list"),
				{Role: chat.Assistant, Content: []chat.Part{chat.TextPart("ok"), chat.ToolUsePart(chat.ToolCall{ID: "c1", Name: "list_directory", Input: json.RawMessage(`{"path":"/w"}`)})}},
				{Role: chat.User, Content: []chat.Part{chat.ToolResultPart("c1", "a\nb", true)}},
			},
			Tools: []chat.Tool{{Name: "read_file", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}}},
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
	events := []chat.Event{
		{Kind: chat.EventText, Text: "hello"},
		{Kind: chat.EventToolStart, Index: 1, ToolCall: chat.ToolCall{ID: "c", Name: "read_file"}},
		{Kind: chat.EventToolDelta, Index: 1, Delta: `{"pa`},
		{Kind: chat.EventToolEnd, Index: 1, ToolCall: chat.ToolCall{ID: "c", Name: "read_file", Input: json.RawMessage(`{"path":"/x"}`)}},
		{Kind: chat.EventDone, StopReason: chat.StopToolUse, Usage: chat.Usage{InputTokens: 3, OutputTokens: 4}, Model: "m"},
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
