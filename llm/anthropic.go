package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"
)

// anthropicBackend speaks the Messages API through the official SDK.
type anthropicBackend struct {
	svc     anthropic.MessageService
	timeout time.Duration
}

var _ backend = (*anthropicBackend)(nil)

// newAnthropic builds the service from explicit options only: the SDK's
// environment defaults (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, profiles)
// are not consulted, and its own retries are off (ours run instead).
func newAnthropic(base string, key string, hc *http.Client, timeout time.Duration) *anthropicBackend {
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &anthropicBackend{svc: anthropic.NewMessageService(opts...), timeout: timeout}
}

func (b *anthropicBackend) complete(ctx context.Context, req *Request) (*Response, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalid, err)
	}
	// The request timeout also stops the SDK from refusing large
	// max_tokens without streaming; our context bounds the attempt anyway.
	msg, err := b.svc.New(ctx, params, option.WithRequestTimeout(b.timeout))
	if err != nil {
		return nil, err
	}
	return anthropicResponse(msg)
}

func (b *anthropicBackend) stream(ctx context.Context, req *Request) (eventSource, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalid, err)
	}
	return &anthropicStream{s: b.svc.NewStreaming(ctx, params), blockTool: map[int64]int{}}, nil
}

// anthropicParams translates a request.
func anthropicParams(req *Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:         anthropic.Model(req.Model),
		MaxTokens:     int64(req.MaxTokens),
		StopSequences: req.StopSequences,
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if req.Temperature != nil {
		p.Temperature = anthropic.Float(*req.Temperature)
	}
	for _, m := range req.Messages {
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Content))
		for _, part := range m.Content {
			switch part.Kind {
			case PartText:
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			case PartToolUse:
				in := part.ToolCall.Input
				if len(in) == 0 {
					in = json.RawMessage("{}")
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(part.ToolCall.ID, in, part.ToolCall.Name))
			case PartToolResult:
				r := part.ToolResult
				blocks = append(blocks, anthropic.NewToolResultBlock(r.ID, r.Content, r.IsError))
			}
		}
		role := anthropic.MessageParamRoleUser
		if m.Role == Assistant {
			role = anthropic.MessageParamRoleAssistant
		}
		p.Messages = append(p.Messages, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		schema, err := anthropicSchema(t.InputSchema)
		if err != nil {
			return p, err
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	return p, nil
}

// anthropicSchema carries a JSON Schema object over unchanged:
// properties and required in their fields, every other keyword as an
// extra field.
func anthropicSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(raw) == 0 {
		s.Properties = map[string]any{}
		return s, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, err
	}
	s.ExtraFields = map[string]any{}
	for k, v := range m {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, errors.New("input schema: required is not a list of strings")
			}
		default:
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

func anthropicResponse(msg *anthropic.Message) (*Response, error) {
	if msg.StopReason == "" {
		return nil, malformed("message without stop_reason")
	}
	out := &Response{Model: string(msg.Model), StopReason: anthropicStop(msg.StopReason),
		Usage: anthropicUsage(msg.Usage.InputTokens, msg.Usage.CacheCreationInputTokens, msg.Usage.CacheReadInputTokens, msg.Usage.OutputTokens)}
	for _, blk := range msg.Content {
		switch blk.Type {
		case "text":
			out.Text += blk.Text
		case "tool_use":
			in, err := toolInput(string(blk.Input))
			if err != nil {
				return nil, malformed("tool_use %q: %v", blk.ID, err)
			}
			if blk.ID == "" || blk.Name == "" {
				return nil, malformed("tool_use block without id or name")
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: blk.ID, Name: blk.Name, Input: in})
		}
	}
	return out, nil
}

// anthropicUsage counts cached input as input: it is what the call read.
func anthropicUsage(in, cacheWrite, cacheRead, out int64) Usage {
	return Usage{InputTokens: in + cacheWrite + cacheRead, OutputTokens: out}
}

func anthropicStop(r anthropic.StopReason) StopReason {
	switch r {
	case anthropic.StopReasonEndTurn:
		return StopEnd
	case anthropic.StopReasonToolUse:
		return StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return StopMaxTokens
	case anthropic.StopReasonStopSequence:
		return StopSequence
	case anthropic.StopReasonRefusal:
		return StopRefusal
	case anthropic.StopReasonPauseTurn:
		return StopOther
	}
	return StopOther
}

// anthropicStream converts the SDK's SSE events.
type anthropicStream struct {
	s         *ssestream.Stream[anthropic.MessageStreamEventUnion]
	tools     toolAssembler
	blockTool map[int64]int // content block index → tool call index
	usage     Usage
	stop      StopReason
	model     string
	finished  bool
	q         eventQueue
}

func (a *anthropicStream) next() (Event, error) {
	for {
		if ev, ok := a.q.pop(); ok {
			return ev, nil
		}
		if a.finished {
			return Event{}, io.EOF
		}
		if !a.s.Next() {
			if err := a.s.Err(); err != nil {
				return Event{}, anthropicStreamErr(err)
			}
			return Event{}, errIncomplete
		}
		if err := a.handle(a.s.Current()); err != nil {
			return Event{}, err
		}
	}
}

// anthropicStreamErr turns an SSE error event into a wireError.
func anthropicStreamErr(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) && ae.StatusCode < 300 {
		typ, msg := string(ae.Type()), ""
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		if json.Unmarshal([]byte(ae.RawJSON()), &body) == nil {
			msg = body.Error.Message
		}
		return &wireError{typ: typ, msg: msg}
	}
	return err
}

func (a *anthropicStream) handle(ev anthropic.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.model = string(ev.Message.Model)
		a.usage = anthropicUsage(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens)
	case "content_block_start":
		return a.blockStart(ev)
	case "content_block_delta":
		return a.blockDelta(ev)
	case "content_block_stop":
		if i, ok := a.blockTool[ev.Index]; ok {
			tc, err := a.tools.end(i)
			if err != nil {
				return err
			}
			a.q.push(Event{Kind: EventToolEnd, Index: i, ToolCall: tc})
		}
	case "message_delta":
		a.stop = anthropicStop(ev.Delta.StopReason)
		a.usage.OutputTokens = ev.Usage.OutputTokens
		if in := anthropicUsage(ev.Usage.InputTokens, ev.Usage.CacheCreationInputTokens, ev.Usage.CacheReadInputTokens, 0); in.InputTokens > 0 {
			a.usage.InputTokens = in.InputTokens
		}
	case "message_stop":
		if a.stop == "" {
			return malformed("message_stop before message_delta")
		}
		a.finished = true
		a.q.push(Event{Kind: EventDone, StopReason: a.stop, Usage: a.usage, Model: a.model})
	}
	return nil
}

func (a *anthropicStream) blockStart(ev anthropic.MessageStreamEventUnion) error {
	cb := ev.ContentBlock
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			a.q.push(Event{Kind: EventText, Text: cb.Text})
		}
	case "tool_use":
		if cb.ID == "" {
			return malformed("tool_use block without id")
		}
		i, err := a.tools.start(cb.ID, cb.Name)
		if err != nil {
			return err
		}
		a.blockTool[ev.Index] = i
		a.q.push(Event{Kind: EventToolStart, Index: i, ToolCall: ToolCall{ID: cb.ID, Name: cb.Name}})
	}
	return nil
}

func (a *anthropicStream) blockDelta(ev anthropic.MessageStreamEventUnion) error {
	switch ev.Delta.Type {
	case "text_delta":
		if ev.Delta.Text != "" {
			a.q.push(Event{Kind: EventText, Text: ev.Delta.Text})
		}
	case "input_json_delta":
		i, ok := a.blockTool[ev.Index]
		if !ok {
			return malformed("input_json_delta for block %d, which is not a tool_use", ev.Index)
		}
		if err := a.tools.delta(i, ev.Delta.PartialJSON); err != nil {
			return err
		}
		if ev.Delta.PartialJSON != "" {
			a.q.push(Event{Kind: EventToolDelta, Index: i, Delta: ev.Delta.PartialJSON})
		}
	}
	return nil
}

func (a *anthropicStream) close() error { return a.s.Close() }
