package main

import (
	"encoding/json"
	"testing"

	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/parallax/parallax/internal/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// Engine events as the chat and parallax run --json see them; an
// unknown or missing decision reads as BLOCK.
func TestEventConversions(t *testing.T) {
	proposal := &pb.ToolProposal{CallId: "c1", ActionType: "execute_command", PayloadJson: []byte(`{"command":"ls  -la\n/tmp"}`)}
	tests := []struct {
		name     string
		ev       *pb.Event
		chat     chat.Event
		jsonLine string
	}{
		{"tool proposed", &pb.Event{Seq: 3, SessionId: "s1", Kind: &pb.Event_ToolProposed{ToolProposed: &pb.ToolProposed{TurnId: "t1", Proposal: proposal}}},
			chat.Event{Kind: chat.ToolProposed, Session: "s1", CallID: "c1", Tool: "execute_command", Summary: "ls -la /tmp"},
			`{"seq":3,"session":"s1","type":"tool_proposed","turn":"t1","call_id":"c1","tool":"execute_command","input":{"command":"ls  -la\n/tmp"}}`},
		{"verdict without decision", &pb.Event{Seq: 4, SessionId: "s1", Kind: &pb.Event_Verdict{Verdict: &pb.Verdict{CallId: "c1", Rule: "r"}}},
			chat.Event{Kind: chat.Verdict, Session: "s1", CallID: "c1", Decision: "BLOCK", Rule: "r"},
			`{"seq":4,"session":"s1","type":"verdict","call_id":"c1","decision":"BLOCK","rule":"r"}`},
		{"result", &pb.Event{Seq: 5, SessionId: "s1", Kind: &pb.Event_ToolResult{ToolResult: &pb.ToolResult{CallId: "c1", Ok: true, Output: "x"}}},
			chat.Event{Kind: chat.ToolResult, Session: "s1", CallID: "c1", Output: "x"},
			`{"seq":5,"session":"s1","type":"tool_result","call_id":"c1","output":"x","ok":true}`},
		{"done", &pb.Event{Seq: 6, SessionId: "s1", Kind: &pb.Event_ResponseComplete{ResponseComplete: &pb.ResponseComplete{TurnId: "t1", Text: "hi",
			Usage: &pb.Usage{InputTokens: 10, OutputTokens: 2}}}},
			chat.Event{Kind: chat.ResponseComplete, Session: "s1", Text: "hi", Tokens: 12},
			`{"seq":6,"session":"s1","type":"response_complete","turn":"t1","text":"hi","tokens":{"input":10,"output":2}}`},
		{"approval asked", &pb.Event{Seq: 8, SessionId: "s1", Kind: &pb.Event_ApprovalNeeded{ApprovalNeeded: &pb.ApprovalNeeded{ApprovalId: "a1",
			CallId: "c1", ActionType: "write_file", RedactedPayloadJson: []byte(`{"path":"/etc/x"}`), Reason: "system"}}},
			chat.Event{Kind: chat.ApprovalNeeded, Session: "s1", ApprovalID: "a1", Tool: "write_file", Summary: "/etc/x", Reason: "system"},
			`{"seq":8,"session":"s1","type":"approval_needed","call_id":"c1","approval_id":"a1","tool":"write_file","reason":"system"}`},
		{"approval resolved", &pb.Event{Seq: 9, SessionId: "s1", Kind: &pb.Event_ApprovalResolved{ApprovalResolved: &pb.ApprovalResolved{ApprovalId: "a1",
			Decision: pb.Decision_DECISION_ALLOW, Code: "answered"}}},
			chat.Event{Kind: chat.ApprovalResolved, Session: "s1", ApprovalID: "a1", Decision: "ALLOW", Reason: "answered"},
			`{"seq":9,"session":"s1","type":"approval_resolved","approval_id":"a1","decision":"ALLOW","code":"answered"}`},
		{"error", &pb.Event{Seq: 7, SessionId: "s1", Kind: &pb.Event_Error{Error: &pb.EventError{Code: "agent_exited", Message: "gone", TurnId: "t1"}}},
			chat.Event{Kind: chat.Error, Session: "s1", Text: "agent_exited: gone"},
			`{"seq":7,"session":"s1","type":"error","turn":"t1","text":"gone","code":"agent_exited"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce, ok := chatEvent(tt.ev)
			if !ok || ce != tt.chat {
				t.Errorf("chat: got %+v (%v), want %+v", ce, ok, tt.chat)
			}
			je, ok := toJSONEvent(tt.ev)
			b, _ := json.Marshal(je)
			if !ok || string(b) != tt.jsonLine {
				t.Errorf("json: got %s (%v), want %s", b, ok, tt.jsonLine)
			}
		})
	}
	if _, ok := chatEvent(&pb.Event{SessionId: "s1"}); ok {
		t.Error("an event without a kind converted for the chat")
	}
}

func TestPlainErr(t *testing.T) {
	err := plainErr(grpcstatus.Error(codes.InvalidArgument, "/config: a security setting cannot be changed"))
	if err.Error() != "/config: a security setting cannot be changed" {
		t.Fatalf("got %q", err)
	}
	if plainErr(nil) != nil {
		t.Fatal("nil is not nil")
	}
}
