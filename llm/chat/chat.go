package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Provider is one configured model that completes chats. Implementations
// are safe for concurrent use.
type Provider interface {
	// Complete sends the request and returns the whole answer.
	Complete(ctx context.Context, req Request) (*Response, error)
	// Stream sends the request and returns the answer as events. The
	// caller must Close the stream.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Stream is an answer arriving in pieces. Next returns the next event;
// after the EventDone event it returns io.EOF. An error other than io.EOF
// ends the stream. Close releases the connection; it is safe to call
// more than once and from another goroutine than Next.
type Stream interface {
	Next() (Event, error)
	Close() error
}

// MessageRole is who wrote a message.
type MessageRole string

// Message roles. The system prompt is Request.System.
const (
	User      MessageRole = "user"
	Assistant MessageRole = "assistant"
)

// PartKind says which fields of a Part are set.
type PartKind uint8

// Part kinds.
const (
	PartText       PartKind = iota + 1 // Text
	PartToolUse                        // ToolCall: a call the assistant made earlier
	PartToolResult                     // ToolResult: what the call returned
)

// Part is one piece of a message's content.
type Part struct {
	Kind       PartKind
	Text       string
	ToolCall   ToolCall
	ToolResult ToolResult
}

// ToolResult is the outcome of a tool call, sent back in a user message.
type ToolResult struct {
	// ID is the ToolCall.ID it answers.
	ID      string
	Content string
	IsError bool
}

// Message is one turn of the conversation.
type Message struct {
	Role    MessageRole
	Content []Part
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// ToolUsePart returns the part recording a call the assistant made.
func ToolUsePart(c ToolCall) Part { return Part{Kind: PartToolUse, ToolCall: c} }

// ToolResultPart returns the part answering tool call id.
func ToolResultPart(id, content string, isError bool) Part {
	return Part{Kind: PartToolResult, ToolResult: ToolResult{ID: id, Content: content, IsError: isError}}
}

// UserText is a user message holding one text part.
func UserText(s string) Message { return Message{Role: User, Content: []Part{TextPart(s)}} }

// Tool is a function the model may call. InputSchema is a JSON Schema
// object ({"type":"object","properties":…}).
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is one chat completion.
type Request struct {
	// Model overrides the configured model name; empty uses it.
	Model    string
	System   string
	Messages []Message
	Tools    []Tool
	// MaxTokens bounds the answer; 0 uses the model's configured default.
	MaxTokens     int
	Temperature   *float64
	StopSequences []string
}

// ToolCall is the model asking for a tool to run. Input is a JSON object.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// Usage is what one call cost in tokens, as the provider reported it.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// StopReason is why the model stopped, normalised across providers.
type StopReason string

// Stop reasons.
const (
	StopEnd       StopReason = "end"        // the model finished its turn
	StopToolUse   StopReason = "tool_use"   // the model wants tool results
	StopMaxTokens StopReason = "max_tokens" // MaxTokens reached
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal" // refused or filtered by the provider
	StopOther     StopReason = "other"
)

// Response is a whole answer.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason StopReason
	Usage      Usage
	// Model is the model that answered, as the provider named it.
	Model string
	// Attempts is how many requests were sent (1 without retries).
	Attempts int
}

// EventKind says which fields of an Event are set.
type EventKind uint8

// Stream event kinds.
const (
	EventText      EventKind = iota + 1 // Text
	EventToolStart                      // Index, ToolCall.ID, ToolCall.Name
	EventToolDelta                      // Index, Delta: a piece of the arguments' JSON
	EventToolEnd                        // Index, ToolCall complete with Input
	EventDone                           // StopReason, Usage, Model, Attempts
)

// String names the kind.
func (k EventKind) String() string {
	switch k {
	case EventText:
		return "text"
	case EventToolStart:
		return "tool_start"
	case EventToolDelta:
		return "tool_delta"
	case EventToolEnd:
		return "tool_end"
	case EventDone:
		return "done"
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Event is one piece of a streamed answer.
type Event struct {
	Kind EventKind
	Text string
	// Index numbers the tool calls of this answer from 0.
	Index      int
	ToolCall   ToolCall
	Delta      string
	StopReason StopReason
	Usage      Usage
	Model      string
	// Attempts is how many requests the stream took to start.
	Attempts int
}

// Collect reads s to its end and returns the answer it carried. It
// closes s.
func Collect(s Stream) (resp *Response, err error) {
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			resp, err = nil, cerr
		}
	}()
	var text strings.Builder
	out := &Response{}
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("collect stream: ended without a done event")
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind {
		case EventText:
			text.WriteString(ev.Text)
		case EventToolEnd:
			out.ToolCalls = append(out.ToolCalls, ev.ToolCall)
		case EventDone:
			out.Text = text.String()
			out.StopReason, out.Usage, out.Model, out.Attempts = ev.StopReason, ev.Usage, ev.Model, ev.Attempts
			return out, nil
		case EventToolStart, EventToolDelta:
		}
	}
}
