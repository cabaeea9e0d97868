package agent

import (
	"encoding/json"

	"github.com/parallax/parallax/llm/chat"
	"github.com/parallax/parallax/verdict"
)

// EventKind names what happened in a turn.
type EventKind uint8

// Event kinds, in the order a turn produces them.
const (
	EventTextDelta    EventKind = iota + 1 // Text: a piece of the reply
	EventToolProposed                      // CallID, Tool, Input
	EventVerdict                           // CallID, Tool, Decision, Rule, Reason
	EventToolResult                        // CallID, Tool, Output, IsError
	EventCompacted                         // Text: what was summarised or dropped
	EventTurnDone                          // Text: the whole reply, Usage
	EventTurnError                         // Err
)

func (k EventKind) String() string {
	switch k {
	case EventTextDelta:
		return "text_delta"
	case EventToolProposed:
		return "tool_proposed"
	case EventVerdict:
		return "verdict"
	case EventToolResult:
		return "tool_result"
	case EventCompacted:
		return "compacted"
	case EventTurnDone:
		return "turn_done"
	case EventTurnError:
		return "turn_error"
	}
	return "unknown"
}

// Event is one thing a turn reports to its sink.
type Event struct {
	Kind     EventKind
	Session  string
	Text     string
	CallID   string
	Tool     string
	Input    json.RawMessage
	Decision verdict.Decision
	Rule     string
	Reason   string
	Output   string
	IsError  bool
	Usage    chat.Usage
	Err      string
}

// Sink receives a turn's events, in order, on the turn's goroutine.
type Sink func(Event)
