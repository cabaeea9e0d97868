package wire

import (
	"encoding/json"
	"fmt"

	"github.com/parallax/parallax/llm/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// Request returns the protocol form of an LLM request of session.
func Request(id, session string, r chat.Request) *pb.LLMRequest {
	out := &pb.LLMRequest{RequestId: id, SessionId: session, Model: r.Model, System: r.System,
		MaxTokens: uint32(max(r.MaxTokens, 0)), Temperature: r.Temperature, StopSequences: r.StopSequences}
	for _, m := range r.Messages {
		out.Messages = append(out.Messages, message(m))
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, &pb.ToolDefinition{Name: t.Name, Description: t.Description, InputSchemaJson: t.InputSchema})
	}
	return out
}

// Messages returns the protocol form of a conversation's messages.
func Messages(ms []chat.Message) []*pb.Message {
	out := make([]*pb.Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, message(m))
	}
	return out
}

// FromMessages is the llm form of protocol messages.
func FromMessages(ms []*pb.Message) ([]chat.Message, error) {
	out := make([]chat.Message, 0, len(ms))
	for i, m := range ms {
		msg, err := fromMessage(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, msg)
	}
	return out, nil
}

func message(m chat.Message) *pb.Message {
	out := &pb.Message{Role: pb.Role_ROLE_USER}
	if m.Role == chat.Assistant {
		out.Role = pb.Role_ROLE_ASSISTANT
	}
	for _, p := range m.Content {
		switch p.Kind {
		case chat.PartText:
			out.Content = append(out.Content, &pb.Part{Kind: &pb.Part_Text{Text: p.Text}})
		case chat.PartToolUse:
			out.Content = append(out.Content, &pb.Part{Kind: &pb.Part_ToolUse{ToolUse: toolCall(p.ToolCall)}})
		case chat.PartToolResult:
			out.Content = append(out.Content, &pb.Part{Kind: &pb.Part_ToolResult{ToolResult: &pb.ToolResultPart{
				CallId: p.ToolResult.ID, Content: p.ToolResult.Content, IsError: p.ToolResult.IsError}}})
		}
	}
	return out
}

func toolCall(c chat.ToolCall) *pb.ToolCall {
	return &pb.ToolCall{Id: c.ID, Name: c.Name, InputJson: c.Input}
}

// FromRequest is the chat.Request a protocol request carries.
func FromRequest(r *pb.LLMRequest) (chat.Request, error) {
	out := chat.Request{Model: r.GetModel(), System: r.GetSystem(), MaxTokens: int(r.GetMaxTokens()),
		Temperature: r.Temperature, StopSequences: r.GetStopSequences()}
	for i, m := range r.GetMessages() {
		msg, err := fromMessage(m)
		if err != nil {
			return chat.Request{}, fmt.Errorf("llm request %s: message %d: %w", r.GetRequestId(), i, err)
		}
		out.Messages = append(out.Messages, msg)
	}
	for _, t := range r.GetTools() {
		out.Tools = append(out.Tools, chat.Tool{Name: t.GetName(), Description: t.GetDescription(), InputSchema: t.GetInputSchemaJson()})
	}
	return out, nil
}

func fromMessage(m *pb.Message) (chat.Message, error) {
	var out chat.Message
	switch m.GetRole() {
	case pb.Role_ROLE_USER:
		out.Role = chat.User
	case pb.Role_ROLE_ASSISTANT:
		out.Role = chat.Assistant
	default:
		return out, fmt.Errorf("unknown role %v", m.GetRole())
	}
	for j, p := range m.GetContent() {
		switch k := p.GetKind().(type) {
		case *pb.Part_Text:
			out.Content = append(out.Content, chat.TextPart(k.Text))
		case *pb.Part_ToolUse:
			out.Content = append(out.Content, chat.ToolUsePart(FromToolCall(k.ToolUse)))
		case *pb.Part_ToolResult:
			out.Content = append(out.Content, chat.ToolResultPart(k.ToolResult.GetCallId(), k.ToolResult.GetContent(), k.ToolResult.GetIsError()))
		default:
			return out, fmt.Errorf("part %d has no known kind", j)
		}
	}
	return out, nil
}

// FromToolCall is the llm form of a protocol tool call.
func FromToolCall(c *pb.ToolCall) chat.ToolCall {
	return chat.ToolCall{ID: c.GetId(), Name: c.GetName(), Input: json.RawMessage(c.GetInputJson())}
}

// Chunk returns the protocol form of one streamed event.
func Chunk(id string, ev chat.Event) *pb.LLMChunk {
	c := &pb.LLMChunk{RequestId: id}
	switch ev.Kind {
	case chat.EventText:
		c.Event = &pb.LLMChunk_Text{Text: ev.Text}
	case chat.EventToolStart:
		c.Event = &pb.LLMChunk_ToolStart{ToolStart: &pb.ToolStart{Index: uint32(max(ev.Index, 0)), CallId: ev.ToolCall.ID, Name: ev.ToolCall.Name}}
	case chat.EventToolDelta:
		c.Event = &pb.LLMChunk_ToolDelta{ToolDelta: &pb.ToolDelta{Index: uint32(max(ev.Index, 0)), Json: ev.Delta}}
	case chat.EventToolEnd:
		c.Event = &pb.LLMChunk_ToolEnd{ToolEnd: &pb.ToolEnd{Index: uint32(max(ev.Index, 0)), Call: toolCall(ev.ToolCall)}}
	case chat.EventDone:
		c.Event = &pb.LLMChunk_Done{Done: &pb.LLMDone{StopReason: Stop(ev.StopReason), Usage: Usage(ev.Usage), Model: ev.Model}}
	}
	return c
}

// ChunkError is the last chunk of a request that failed.
func ChunkError(id, code, msg string, retryable bool) *pb.LLMChunk {
	return &pb.LLMChunk{RequestId: id, Event: &pb.LLMChunk_Error{Error: &pb.LLMError{Code: code, Message: msg, Retryable: retryable}}}
}

// FromChunk is the llm event a chunk carries; ok is false for an error
// chunk or an empty one.
func FromChunk(c *pb.LLMChunk) (chat.Event, bool) {
	switch e := c.GetEvent().(type) {
	case *pb.LLMChunk_Text:
		return chat.Event{Kind: chat.EventText, Text: e.Text}, true
	case *pb.LLMChunk_ToolStart:
		return chat.Event{Kind: chat.EventToolStart, Index: int(e.ToolStart.GetIndex()),
			ToolCall: chat.ToolCall{ID: e.ToolStart.GetCallId(), Name: e.ToolStart.GetName()}}, true
	case *pb.LLMChunk_ToolDelta:
		return chat.Event{Kind: chat.EventToolDelta, Index: int(e.ToolDelta.GetIndex()), Delta: e.ToolDelta.GetJson()}, true
	case *pb.LLMChunk_ToolEnd:
		return chat.Event{Kind: chat.EventToolEnd, Index: int(e.ToolEnd.GetIndex()), ToolCall: FromToolCall(e.ToolEnd.GetCall())}, true
	case *pb.LLMChunk_Done:
		return chat.Event{Kind: chat.EventDone, StopReason: FromStop(e.Done.GetStopReason()),
			Usage: FromUsage(e.Done.GetUsage()), Model: e.Done.GetModel()}, true
	}
	return chat.Event{}, false
}

// stops pairs the llm stop reasons with their protocol values.
var stops = []struct {
	l chat.StopReason
	p pb.StopReason
}{
	{chat.StopEnd, pb.StopReason_STOP_REASON_END},
	{chat.StopToolUse, pb.StopReason_STOP_REASON_TOOL_USE},
	{chat.StopMaxTokens, pb.StopReason_STOP_REASON_MAX_TOKENS},
	{chat.StopSequence, pb.StopReason_STOP_REASON_STOP_SEQUENCE},
	{chat.StopRefusal, pb.StopReason_STOP_REASON_REFUSAL},
	{chat.StopOther, pb.StopReason_STOP_REASON_OTHER},
}

// Stop is the protocol stop reason; an unknown one is OTHER.
func Stop(s chat.StopReason) pb.StopReason {
	for _, e := range stops {
		if e.l == s {
			return e.p
		}
	}
	return pb.StopReason_STOP_REASON_OTHER
}

// FromStop is the llm stop reason; an unknown one is "other".
func FromStop(s pb.StopReason) chat.StopReason {
	for _, e := range stops {
		if e.p == s {
			return e.l
		}
	}
	return chat.StopOther
}

// Usage is the protocol form of token usage.
func Usage(u chat.Usage) *pb.Usage {
	return &pb.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}

// FromUsage is the llm form of token usage.
func FromUsage(u *pb.Usage) chat.Usage {
	return chat.Usage{InputTokens: u.GetInputTokens(), OutputTokens: u.GetOutputTokens()}
}
