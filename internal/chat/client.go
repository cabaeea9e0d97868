package chat

import "context"

// EventKind names an engine event the chat shows.
type EventKind uint8

// The engine's events, as the chat sees them.
const (
	MessageReceived  EventKind = iota + 1 // Text: a user message (from any client)
	TextDelta                             // Text: a piece of the reply
	ToolProposed                          // CallID, Tool, Summary
	Verdict                               // CallID, Decision, Rule, Reason
	ApprovalNeeded                        // ApprovalID, Tool, Summary, Reason
	ApprovalResolved                      // ApprovalID, Decision
	ToolResult                            // CallID, Output, IsError
	ResponseComplete                      // Text (whole reply), Tokens
	Error                                 // Text
)

// Event is one engine event for the session the chat shows.
type Event struct {
	Kind       EventKind
	Session    string
	Text       string
	CallID     string
	Tool       string
	Summary    string // what the call acts on, one line (a path, a command)
	Decision   string // ALLOW, BLOCK, ESCALATE
	Rule       string
	Reason     string
	Output     string
	IsError    bool
	ApprovalID string
	Pattern    string // what an approval's "allow this pattern" would cover; "" when none is offered
	Tokens     int64
}

// Client is the engine as the chat uses it.
type Client interface {
	// Send posts a user message to a session.
	Send(ctx context.Context, session, text string) error
	// Approve answers a pending approval: deny, or allow with a grant:
	// "once", "session" (the same action in this session) or "pattern"
	// (the offered pattern).
	Approve(ctx context.Context, id string, allow bool, grant string) error
	// Command runs a slash command in the engine and returns its text;
	// Switch, when set, is the session the chat shows from now on, and
	// OTR says whether it is off the record.
	Command(ctx context.Context, session, name string, args []string) (CommandResult, error)
}

// CommandResult is what a slash command answers.
type CommandResult struct {
	Text   string
	Switch string
	OTR    bool
	Quit   bool
}
