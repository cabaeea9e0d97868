package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/packages/ssestream"
	"github.com/openai/openai-go/shared"
)

// openaiBackend speaks Chat Completions through the official SDK, for
// OpenAI and every compatible server (Ollama, vLLM, …).
type openaiBackend struct {
	svc openai.ChatCompletionService
	// native is true for OpenAI itself: max_completion_tokens instead of
	// the max_tokens compatible servers understand.
	native bool
}

var _ backend = (*openaiBackend)(nil)

// newOpenAI builds the service from explicit options only. The SDK's
// client constructor would read OPENAI_API_KEY, OPENAI_BASE_URL and
// friends from the environment, which could send a key to a local
// server that was configured without one; the service is built
// directly instead. Its own retries are off.
func newOpenAI(base, key string, hc *http.Client, native bool) *openaiBackend {
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &openaiBackend{svc: openai.NewChatCompletionService(opts...), native: native}
}

func (b *openaiBackend) complete(ctx context.Context, req *Request) (*Response, error) {
	params, err := b.params(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalid, err)
	}
	cc, err := b.svc.New(ctx, params)
	if err != nil {
		return nil, err
	}
	return openaiResponse(cc)
}

func (b *openaiBackend) stream(ctx context.Context, req *Request) (eventSource, error) {
	params, err := b.params(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errInvalid, err)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	return &openaiStream{s: b.svc.NewStreaming(ctx, params), byWire: map[int64]int{}}, nil
}

func (b *openaiBackend) params(req *Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	if b.native {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	} else {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if len(req.StopSequences) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.StopSequences}
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		p.Messages = append(p.Messages, openaiMessages(m)...)
	}
	for _, t := range req.Tools {
		params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(t.InputSchema) > 0 {
			params = shared.FunctionParameters{}
			if err := json.Unmarshal(t.InputSchema, &params); err != nil {
				return p, err
			}
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionToolParam{Function: fd})
	}
	return p, nil
}

// toolErrorPrefix marks a failed tool result: Chat Completions has no
// error flag for tool messages.
const toolErrorPrefix = "[tool error] "

// openaiMessages translates one message. A user message's tool results
// become tool messages (first, right after the assistant's calls), its
// text a user message.
func openaiMessages(m Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	var text strings.Builder
	if m.Role == Assistant {
		a := openai.ChatCompletionAssistantMessageParam{}
		for _, part := range m.Content {
			switch part.Kind {
			case PartText:
				text.WriteString(part.Text)
			case PartToolUse:
				in := string(part.ToolCall.Input)
				if in == "" {
					in = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallParam{ID: part.ToolCall.ID,
					Function: openai.ChatCompletionMessageToolCallFunctionParam{Name: part.ToolCall.Name, Arguments: in}})
			case PartToolResult:
			}
		}
		if text.Len() > 0 {
			a.Content.OfString = openai.String(text.String())
		}
		return append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	}
	for _, part := range m.Content {
		switch part.Kind {
		case PartText:
			text.WriteString(part.Text)
		case PartToolResult:
			c := part.ToolResult.Content
			if part.ToolResult.IsError {
				c = toolErrorPrefix + c
			}
			out = append(out, openai.ToolMessage(c, part.ToolResult.ID))
		case PartToolUse:
		}
	}
	if text.Len() > 0 {
		out = append(out, openai.UserMessage(text.String()))
	}
	return out
}

func openaiResponse(cc *openai.ChatCompletion) (*Response, error) {
	if len(cc.Choices) == 0 {
		return nil, malformed("completion without choices")
	}
	ch := cc.Choices[0]
	out := &Response{Text: ch.Message.Content, Model: cc.Model, StopReason: openaiStop(ch.FinishReason),
		Usage: Usage{InputTokens: cc.Usage.PromptTokens, OutputTokens: cc.Usage.CompletionTokens}}
	if ch.FinishReason == "" {
		return nil, malformed("choice without finish_reason")
	}
	if ch.Message.Refusal != "" {
		out.StopReason = StopRefusal
		if out.Text == "" {
			out.Text = ch.Message.Refusal
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		in, err := toolInput(tc.Function.Arguments)
		if err != nil {
			return nil, malformed("tool call %d (%s): %v", i, tc.Function.Name, err)
		}
		if tc.Function.Name == "" {
			return nil, malformed("tool call %d has no name", i)
		}
		id := tc.ID
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Input: in})
	}
	return out, nil
}

func openaiStop(r string) StopReason {
	switch r {
	case "stop":
		return StopEnd
	case "tool_calls", "function_call":
		return StopToolUse
	case "length":
		return StopMaxTokens
	case "content_filter":
		return StopRefusal
	}
	return StopOther
}

// openaiStream converts chunks. The SDK ends the stream on "[DONE]" and
// on a clean EOF alike, so completeness is judged by the finish_reason.
type openaiStream struct {
	s      *ssestream.Stream[openai.ChatCompletionChunk]
	tools  toolAssembler
	byWire map[int64]int // the wire's tool_calls[].index → ours
	usage  Usage
	stop   StopReason
	model  string
	ended  bool // a finish_reason arrived
	done   bool
	q      eventQueue
}

func (o *openaiStream) next() (Event, error) {
	for {
		if ev, ok := o.q.pop(); ok {
			return ev, nil
		}
		if o.done {
			return Event{}, io.EOF
		}
		if !o.s.Next() {
			if err := o.s.Err(); err != nil {
				return Event{}, openaiStreamErr(err)
			}
			if !o.ended {
				return Event{}, errIncomplete
			}
			o.done = true
			o.q.push(Event{Kind: EventDone, StopReason: o.stop, Usage: o.usage, Model: o.model})
			continue
		}
		if err := o.handle(o.s.Current()); err != nil {
			return Event{}, err
		}
	}
}

// streamErrPrefix starts the SDK's error for an in-stream {"error":…};
// the error object's JSON follows it.
const streamErrPrefix = "received error while streaming: "

// openaiStreamErr turns an in-stream {"error":…} into a wireError.
func openaiStreamErr(err error) error {
	raw, ok := strings.CutPrefix(err.Error(), streamErrPrefix)
	if !ok {
		return err
	}
	var obj errorObject
	if json.Unmarshal([]byte(raw), &obj) == nil && obj.Message != "" {
		return &wireError{typ: firstNonEmpty(obj.Type, obj.Status, "error"), msg: obj.Message}
	}
	return &wireError{typ: "error", msg: raw}
}

func (o *openaiStream) handle(c openai.ChatCompletionChunk) error {
	if c.Model != "" {
		o.model = c.Model
	}
	if c.JSON.Usage.Valid() {
		o.usage = Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			o.q.push(Event{Kind: EventText, Text: ch.Delta.Content})
		}
		for _, tc := range ch.Delta.ToolCalls {
			if err := o.toolDelta(tc); err != nil {
				return err
			}
		}
		if ch.FinishReason != "" {
			evs, err := o.tools.endAll()
			if err != nil {
				return err
			}
			o.q.push(evs...)
			o.stop, o.ended = openaiStop(ch.FinishReason), true
		}
	}
	return nil
}

func (o *openaiStream) toolDelta(tc openai.ChatCompletionChunkChoiceDeltaToolCall) error {
	i, ok := o.byWire[tc.Index]
	if !ok {
		var err error
		if i, err = o.tools.start(tc.ID, tc.Function.Name); err != nil {
			return err
		}
		o.byWire[tc.Index] = i
		o.q.push(Event{Kind: EventToolStart, Index: i, ToolCall: o.tools.calls[i]})
	}
	if tc.Function.Arguments == "" {
		return nil
	}
	if err := o.tools.delta(i, tc.Function.Arguments); err != nil {
		return err
	}
	o.q.push(Event{Kind: EventToolDelta, Index: i, Delta: tc.Function.Arguments})
	return nil
}

func (o *openaiStream) close() error { return o.s.Close() }
