package main

import (
	"encoding/json"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// chatEvent is an engine event as the chat shows it; ok is false for
// events the chat has no line for.
func chatEvent(ev *pb.Event) (chat.Event, bool) {
	out := chat.Event{Session: ev.GetSessionId()}
	switch k := ev.GetKind().(type) {
	case *pb.Event_MessageReceived:
		out.Kind, out.Text = chat.MessageReceived, k.MessageReceived.GetText()
	case *pb.Event_TextDelta:
		out.Kind, out.Text = chat.TextDelta, k.TextDelta.GetText()
	case *pb.Event_ToolProposed:
		p := k.ToolProposed.GetProposal()
		out.Kind, out.CallID, out.Tool, out.Summary = chat.ToolProposed, p.GetCallId(), p.GetActionType(), action.Target(p.GetPayloadJson())
	case *pb.Event_Verdict:
		v := k.Verdict
		out.Kind, out.CallID, out.Decision, out.Rule, out.Reason = chat.Verdict, v.GetCallId(), decisionWord(v.GetDecision()), v.GetRule(), v.GetReason()
	case *pb.Event_ApprovalNeeded:
		a := k.ApprovalNeeded
		out.Kind, out.ApprovalID, out.Tool, out.Summary, out.Reason, out.Pattern = chat.ApprovalNeeded, a.GetApprovalId(), a.GetActionType(),
			action.Target(a.GetRedactedPayloadJson()), a.GetReason(), a.GetPattern()
	case *pb.Event_ApprovalResolved:
		a := k.ApprovalResolved
		out.Kind, out.ApprovalID, out.Decision, out.Reason = chat.ApprovalResolved, a.GetApprovalId(), decisionWord(a.GetDecision()), a.GetCode()
	case *pb.Event_ToolResult:
		r := k.ToolResult
		out.Kind, out.CallID, out.Output, out.IsError = chat.ToolResult, r.GetCallId(), r.GetOutput(), !r.GetOk()
	case *pb.Event_ResponseComplete:
		r := k.ResponseComplete
		out.Kind, out.Text, out.Tokens = chat.ResponseComplete, r.GetText(), r.GetUsage().GetInputTokens()+r.GetUsage().GetOutputTokens()
	case *pb.Event_Error:
		out.Kind, out.Text = chat.Error, k.Error.GetCode()+": "+k.Error.GetMessage()
	default:
		return out, false
	}
	return out, true
}

func decisionWord(d pb.Decision) string {
	switch d {
	case pb.Decision_DECISION_ALLOW:
		return "ALLOW"
	case pb.Decision_DECISION_PENDING:
		return "ESCALATE"
	case pb.Decision_DECISION_UNSPECIFIED, pb.Decision_DECISION_BLOCK:
	}
	return "BLOCK"
}

// jsonEvent is one line of parallax run --json.
type jsonEvent struct {
	Seq      uint64 `json:"seq"`
	Session  string `json:"session"`
	Type     string `json:"type"`
	Turn     string `json:"turn,omitempty"`
	Text     string `json:"text,omitempty"`
	CallID   string `json:"call_id,omitempty"`
	Approval string `json:"approval_id,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Input    any    `json:"input,omitempty"`
	Decision string `json:"decision,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Output   string `json:"output,omitempty"`
	OK       *bool  `json:"ok,omitempty"`
	Code     string `json:"code,omitempty"`
	Stop     string `json:"stop,omitempty"`
	Tokens   *struct {
		In  int64 `json:"input"`
		Out int64 `json:"output"`
	} `json:"tokens,omitempty"`
}

// toJSONEvent is the JSON Lines form of an engine event.
func toJSONEvent(ev *pb.Event) (jsonEvent, bool) {
	out := jsonEvent{Seq: ev.GetSeq(), Session: ev.GetSessionId()}
	switch k := ev.GetKind().(type) {
	case *pb.Event_MessageReceived:
		out.Type, out.Turn, out.Text = "message_received", k.MessageReceived.GetTurnId(), k.MessageReceived.GetText()
	case *pb.Event_TextDelta:
		out.Type, out.Turn, out.Text = "text_delta", k.TextDelta.GetTurnId(), k.TextDelta.GetText()
	case *pb.Event_ToolProposed:
		p := k.ToolProposed.GetProposal()
		out.Type, out.Turn, out.CallID, out.Tool = "tool_proposed", k.ToolProposed.GetTurnId(), p.GetCallId(), p.GetActionType()
		var in any
		if json.Unmarshal(p.GetPayloadJson(), &in) == nil {
			out.Input = in
		}
	case *pb.Event_Verdict:
		v := k.Verdict
		out.Type, out.CallID, out.Decision, out.Rule, out.Reason = "verdict", v.GetCallId(), decisionWord(v.GetDecision()), v.GetRule(), v.GetReason()
	case *pb.Event_ApprovalNeeded:
		a := k.ApprovalNeeded
		out.Type, out.CallID, out.Approval, out.Tool, out.Reason = "approval_needed", a.GetCallId(), a.GetApprovalId(), a.GetActionType(), a.GetReason()
	case *pb.Event_ApprovalResolved:
		a := k.ApprovalResolved
		out.Type, out.Approval, out.Decision, out.Code = "approval_resolved", a.GetApprovalId(), decisionWord(a.GetDecision()), a.GetCode()
	case *pb.Event_ToolResult:
		r := k.ToolResult
		ok := r.GetOk()
		out.Type, out.CallID, out.Output, out.OK = "tool_result", r.GetCallId(), r.GetOutput(), &ok
	case *pb.Event_ResponseComplete:
		r := k.ResponseComplete
		out.Type, out.Turn, out.Text, out.Stop = "response_complete", r.GetTurnId(), r.GetText(), stopWord(r.GetStopReason())
		out.Tokens = &struct {
			In  int64 `json:"input"`
			Out int64 `json:"output"`
		}{r.GetUsage().GetInputTokens(), r.GetUsage().GetOutputTokens()}
	case *pb.Event_Error:
		out.Type, out.Turn, out.Code, out.Text = "error", k.Error.GetTurnId(), k.Error.GetCode(), k.Error.GetMessage()
	default:
		return out, false
	}
	return out, true
}

// stopWord names why a turn ended: "end" when the model finished,
// "tool_round_limit" when the turn used up its tool rounds, and so on.
func stopWord(r pb.StopReason) string {
	if r == pb.StopReason_STOP_REASON_UNSPECIFIED {
		return ""
	}
	return strings.ToLower(strings.TrimPrefix(r.String(), "STOP_REASON_"))
}
