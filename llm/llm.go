package llm

import (
	"encoding/json"

	"github.com/parallax/parallax/llm/chat"
)

// The provider-neutral vocabulary lives in package chat, which the
// sandboxed agent imports without linking any provider; these aliases keep
// it usable as llm.Request, llm.Event, … for the engine, the judge and the
// commands. They are the same types, not copies.
type (
	// Provider is one configured model that completes chats (chat.Provider).
	Provider = chat.Provider
	// Stream is an answer arriving in pieces (chat.Stream). A failure of
	// one of this package's streams is an *Error.
	Stream = chat.Stream
	// MessageRole is who wrote a message (chat.MessageRole).
	MessageRole = chat.MessageRole
	// PartKind says which fields of a Part are set (chat.PartKind).
	PartKind = chat.PartKind
	// Part is one piece of a message's content (chat.Part).
	Part = chat.Part
	// ToolResult is the outcome of a tool call (chat.ToolResult).
	ToolResult = chat.ToolResult
	// Message is one turn of the conversation (chat.Message).
	Message = chat.Message
	// Tool is a function the model may call (chat.Tool).
	Tool = chat.Tool
	// Request is one chat completion (chat.Request).
	Request = chat.Request
	// ToolCall is the model asking for a tool to run (chat.ToolCall).
	ToolCall = chat.ToolCall
	// Usage is what one call cost in tokens (chat.Usage).
	Usage = chat.Usage
	// StopReason is why the model stopped (chat.StopReason).
	StopReason = chat.StopReason
	// Response is a whole answer (chat.Response).
	Response = chat.Response
	// EventKind says which fields of an Event are set (chat.EventKind).
	EventKind = chat.EventKind
	// Event is one piece of a streamed answer (chat.Event).
	Event = chat.Event
)

// Message roles (chat.User, chat.Assistant).
const (
	User      = chat.User
	Assistant = chat.Assistant
)

// Part kinds (chat.PartText, …).
const (
	PartText       = chat.PartText
	PartToolUse    = chat.PartToolUse
	PartToolResult = chat.PartToolResult
)

// Stop reasons (chat.StopEnd, …).
const (
	StopEnd       = chat.StopEnd
	StopToolUse   = chat.StopToolUse
	StopMaxTokens = chat.StopMaxTokens
	StopSequence  = chat.StopSequence
	StopRefusal   = chat.StopRefusal
	StopOther     = chat.StopOther
)

// Stream event kinds (chat.EventText, …).
const (
	EventText      = chat.EventText
	EventToolStart = chat.EventToolStart
	EventToolDelta = chat.EventToolDelta
	EventToolEnd   = chat.EventToolEnd
	EventDone      = chat.EventDone
)

// TextPart returns a text part (chat.TextPart).
func TextPart(s string) Part { return chat.TextPart(s) }

// ToolUsePart returns the part recording a call the assistant made
// (chat.ToolUsePart).
func ToolUsePart(c ToolCall) Part { return chat.ToolUsePart(c) }

// ToolResultPart returns the part answering tool call id
// (chat.ToolResultPart).
func ToolResultPart(id, content string, isError bool) Part {
	return chat.ToolResultPart(id, content, isError)
}

// UserText is a user message holding one text part (chat.UserText).
func UserText(s string) Message { return chat.UserText(s) }

// Collect reads s to its end and returns the answer it carried; it
// closes s (chat.Collect).
func Collect(s Stream) (*Response, error) { return chat.Collect(s) }

// toolInput turns the arguments a model produced into a JSON object
// (chat.ToolInput).
func toolInput(raw string) (json.RawMessage, error) { return chat.ToolInput(raw) }
