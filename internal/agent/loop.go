package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/llm/chat"
	"github.com/parallax/parallax/verdict"
)

// Proposal is a tool call the agent hands to the engine.
type Proposal struct {
	Session string
	CallID  string
	Type    action.Type
	Payload json.RawMessage
}

// Outcome is the engine's answer: the gate's decision and, when the call
// ran, its result. A BLOCK carries the rule and reason the model sees.
type Outcome struct {
	Decision verdict.Decision
	Rule     string
	Reason   string
	Output   string
	IsError  bool
}

// Proposer hands proposals to the engine and waits for the outcome.
type Proposer interface {
	Propose(ctx context.Context, p Proposal) (Outcome, error)
}

// Limits bound a conversation.
type Limits struct {
	// MaxToolRounds is how many model answers asking for tools one turn
	// may have (default 25).
	MaxToolRounds int
	// ContextTokens is the model's context window (default 128000).
	ContextTokens int
	// CompactAt is the share of ContextTokens past which older exchanges
	// are summarised (default 0.70).
	CompactAt float64
	// MaxResponseTokens caps each model answer (default 4096).
	MaxResponseTokens int
	// MaxToolOutput caps each tool result the model sees, in bytes
	// (default 64 KiB).
	MaxToolOutput int
}

func (l Limits) withDefaults() Limits {
	if l.MaxToolRounds <= 0 {
		l.MaxToolRounds = 25
	}
	if l.ContextTokens <= 0 {
		l.ContextTokens = 128000
	}
	if l.CompactAt <= 0 || l.CompactAt >= 1 {
		l.CompactAt = 0.70
	}
	if l.MaxResponseTokens <= 0 {
		l.MaxResponseTokens = 4096
	}
	if l.MaxToolOutput <= 0 {
		l.MaxToolOutput = 64 << 10
	}
	return l
}

// Config makes a Conversation.
type Config struct {
	Session string
	Model   string
	System  string
	Limits  Limits
	LLM     chat.Provider
	Tools   Proposer
	// Sink receives the turn's events; nil discards them.
	Sink Sink
}

// Conversation is one session's history and loaded tools. It is not
// safe for concurrent turns: the engine runs one turn per session at a
// time.
type Conversation struct {
	cfg     Config
	lim     Limits
	history []chat.Message
	tools   *Toolset
	summary string
	calls   int
}

// New checks cfg and starts an empty conversation.
func New(cfg Config) (*Conversation, error) {
	switch {
	case cfg.LLM == nil:
		return nil, errors.New("agent: no model provider")
	case cfg.Tools == nil:
		return nil, errors.New("agent: no proposer")
	case cfg.Session == "":
		return nil, errors.New("agent: no session id")
	}
	if cfg.Sink == nil {
		cfg.Sink = func(Event) {}
	}
	return &Conversation{cfg: cfg, lim: cfg.Limits.withDefaults(), tools: NewToolset()}, nil
}

// History returns a copy of the messages kept verbatim.
func (c *Conversation) History() []chat.Message { return append([]chat.Message(nil), c.history...) }

// Summary returns the summary of compacted exchanges, if any.
func (c *Conversation) Summary() string { return c.summary }

// Toolset returns the conversation's loaded tools.
func (c *Conversation) Toolset() *Toolset { return c.tools }

// Reply is the end of a turn.
type Reply struct {
	Text string
	// Rounds is how many model answers the turn took.
	Rounds int
	// LimitReached is set when the turn stopped at MaxToolRounds.
	LimitReached bool
	Usage        chat.Usage
}

// Turn runs one user message to the model's final answer, proposing the
// tool calls the model asks for. An error means the model could not be
// reached (or ctx ended); tool failures never end a turn.
func (c *Conversation) Turn(ctx context.Context, text string) (rep Reply, err error) {
	return c.TurnWith(ctx, text, 0)
}

// TurnWith is Turn with this turn's limit of tool rounds (0: the
// conversation's Limits.MaxToolRounds).
func (c *Conversation) TurnWith(ctx context.Context, text string, maxRounds int) (rep Reply, err error) {
	limit := c.lim.MaxToolRounds
	if maxRounds > 0 {
		limit = maxRounds
	}
	if strings.TrimSpace(text) == "" {
		return rep, errors.New("agent: empty message")
	}
	c.history = append(c.history, chat.UserText(text))
	defer func() {
		if err == nil {
			c.emit(Event{Kind: EventTurnDone, Text: rep.Text, Usage: rep.Usage})
			return
		}
		if n := len(c.history); rep.Rounds == 0 && n > 0 && c.history[n-1].Role == chat.User {
			c.history = c.history[:n-1] // nothing happened: the message can be sent again
		} else {
			c.history = append(c.history, chat.Message{Role: chat.Assistant,
				Content: []chat.Part{chat.TextPart("[turn ended early: " + oneLine(err.Error()) + "]")}})
		}
		c.emit(Event{Kind: EventTurnError, Err: err.Error()})
	}()
	var reply strings.Builder
	for {
		c.compactIfNeeded(ctx)
		resp, err := c.ask(ctx)
		if err != nil {
			return rep, err
		}
		rep.Rounds++
		rep.Usage.InputTokens += resp.Usage.InputTokens
		rep.Usage.OutputTokens += resp.Usage.OutputTokens
		if reply.Len() > 0 && resp.Text != "" {
			reply.WriteString("\n\n") // one paragraph per model answer of the turn
		}
		reply.WriteString(resp.Text)
		c.history = append(c.history, assistantMessage(resp))
		if len(resp.ToolCalls) == 0 {
			rep.Text = reply.String()
			return rep, nil
		}
		if rep.Rounds >= limit {
			c.answerAll(resp.ToolCalls, fmt.Sprintf("not run: this turn reached its limit of %d tool rounds", limit))
			rep.LimitReached = true
			rep.Text = reply.String()
			return rep, nil
		}
		c.runCalls(ctx, resp.ToolCalls)
	}
}

// ask streams one model answer, forwarding text as it comes.
func (c *Conversation) ask(ctx context.Context) (*chat.Response, error) {
	req := chat.Request{Model: c.cfg.Model, System: c.system(), Messages: c.history,
		Tools: c.tools.Tools(), MaxTokens: c.lim.MaxResponseTokens}
	st, err := c.cfg.LLM.Stream(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer st.Close()
	var text strings.Builder
	out := &chat.Response{}
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("model: answer ended without a done event")
		}
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		switch ev.Kind {
		case chat.EventText:
			text.WriteString(ev.Text)
			c.emit(Event{Kind: EventTextDelta, Text: ev.Text})
		case chat.EventToolEnd:
			out.ToolCalls = append(out.ToolCalls, ev.ToolCall)
		case chat.EventDone:
			out.Text, out.StopReason, out.Usage, out.Model = text.String(), ev.StopReason, ev.Usage, ev.Model
			return out, nil
		case chat.EventToolStart, chat.EventToolDelta:
		}
	}
}

func (c *Conversation) system() string {
	if c.summary == "" {
		return c.cfg.System
	}
	return c.cfg.System + "\n# Earlier in this conversation (summary)\n" + c.summary + "\n"
}

func assistantMessage(r *chat.Response) chat.Message {
	m := chat.Message{Role: chat.Assistant}
	if r.Text != "" {
		m.Content = append(m.Content, chat.TextPart(r.Text))
	}
	for _, tc := range r.ToolCalls {
		m.Content = append(m.Content, chat.ToolUsePart(tc))
	}
	if len(m.Content) == 0 {
		m.Content = []chat.Part{chat.TextPart("(no answer)")}
	}
	return m
}

// runCalls proposes each call in order and appends their results as one
// user message.
func (c *Conversation) runCalls(ctx context.Context, calls []chat.ToolCall) {
	parts := make([]chat.Part, 0, len(calls))
	for _, tc := range calls {
		out, isErr := c.runCall(ctx, tc)
		if len(out) > c.lim.MaxToolOutput {
			out = truncateUTF8(out, c.lim.MaxToolOutput) + fmt.Sprintf("\n[cut: %d bytes in all]", len(out))
		}
		c.emit(Event{Kind: EventToolResult, CallID: tc.ID, Tool: tc.Name, Output: out, IsError: isErr})
		parts = append(parts, chat.ToolResultPart(tc.ID, out, isErr))
	}
	c.history = append(c.history, chat.Message{Role: chat.User, Content: parts})
}

// answerAll answers every call with the same error, running none.
func (c *Conversation) answerAll(calls []chat.ToolCall, msg string) {
	parts := make([]chat.Part, 0, len(calls))
	for _, tc := range calls {
		c.emit(Event{Kind: EventToolResult, CallID: tc.ID, Tool: tc.Name, Output: msg, IsError: true})
		parts = append(parts, chat.ToolResultPart(tc.ID, msg, true))
	}
	c.history = append(c.history, chat.Message{Role: chat.User, Content: parts})
}

// runCall answers one call: load_tools here, a tool of a loaded group
// through the engine, anything else with an error.
func (c *Conversation) runCall(ctx context.Context, tc chat.ToolCall) (out string, isErr bool) {
	if tc.Name == LoadToolsName {
		return c.tools.runLoadTools(tc.Input)
	}
	if !c.tools.Allowed(tc.Name) {
		if g, ok := GroupOf(tc.Name); ok {
			return fmt.Sprintf("tool %s is in the group %q, which is not loaded: call %s first", tc.Name, g, LoadToolsName), true
		}
		return fmt.Sprintf("no tool named %q", tc.Name), true
	}
	c.calls++
	id := tc.ID
	if id == "" {
		id = fmt.Sprintf("call-%d", c.calls)
	}
	c.emit(Event{Kind: EventToolProposed, CallID: id, Tool: tc.Name, Input: tc.Input})
	o, err := c.propose(ctx, Proposal{Session: c.cfg.Session, CallID: id, Type: action.Type(tc.Name), Payload: tc.Input})
	if err != nil {
		c.emit(Event{Kind: EventVerdict, CallID: id, Tool: tc.Name, Decision: verdict.Block, Rule: "engine_error", Reason: err.Error()})
		return "not run: the engine could not decide this call (" + oneLine(err.Error()) + ")", true
	}
	c.emit(Event{Kind: EventVerdict, CallID: id, Tool: tc.Name, Decision: o.Decision, Rule: o.Rule, Reason: o.Reason})
	if o.Decision != verdict.Allow {
		return fmt.Sprintf("Blocked by Parallax (%s): %s", o.Rule, o.Reason), true
	}
	return o.Output, o.IsError
}

// propose calls the proposer, turning a panic into an error.
func (c *Conversation) propose(ctx context.Context, p Proposal) (o Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = Outcome{}, fmt.Errorf("internal error: %v", r)
		}
	}()
	return c.cfg.Tools.Propose(ctx, p)
}

// emit sends an event to the sink; a panicking sink loses the event,
// not the turn.
func (c *Conversation) emit(ev Event) {
	ev.Session = c.cfg.Session
	defer func() { _ = recover() }()
	c.cfg.Sink(ev)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncateUTF8(s, 300)
}

// Restore gives a conversation that has run no turn the earlier
// exchanges of its session (an agent process restarted by the engine).
func (c *Conversation) Restore(history []chat.Message) error {
	if len(c.history) > 0 {
		return errors.New("agent: restore: the conversation has already started")
	}
	c.history = append([]chat.Message(nil), history...)
	return nil
}
