package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// ProviderScripted is a model that replays a script file (tests, the
// demo): no network, no key. The entry names the file in `script`.
const ProviderScripted ProviderKind = "scripted"

// MaxScriptBytes bounds a script file.
const MaxScriptBytes = 4 << 20

// ErrScriptEnd is wrapped when a scripted model is called after its last
// turn was played: running past the script is a failure, never silence.
var ErrScriptEnd = errors.New("scripted model: the script has no turn left")

// ErrScriptExpectation is wrapped when the request does not meet a
// turn's expect block.
var ErrScriptExpectation = errors.New("scripted model: expectation not met")

// Script is a parsed script file: the answers a scripted model gives, in
// order. See doc.go for the format.
type Script struct {
	File  string
	Turns []ScriptTurn
}

// ScriptTurn is one answer: text, tool calls, or both.
type ScriptTurn struct {
	Text string `yaml:"text"`
	// Chunk streams the text in pieces of this many bytes (0: one piece).
	Chunk     int          `yaml:"chunk"`
	ToolCalls []ScriptCall `yaml:"tool_calls"`
	// When skips the turn when its condition does not hold for the
	// request (a branch); Expect fails the call when it does not (an
	// assertion).
	When   *ScriptCond  `yaml:"when"`
	Expect *ScriptCond  `yaml:"expect"`
	Usage  *ScriptUsage `yaml:"usage"`
	line   int
}

// ScriptCall is a tool call of a turn. Input must be an object.
type ScriptCall struct {
	ID    string         `yaml:"id"`
	Name  string         `yaml:"name"`
	Input map[string]any `yaml:"input"`
}

// ScriptCond tests the tool results of the request's last message.
type ScriptCond struct {
	ToolResultContains    string `yaml:"tool_result_contains"`
	ToolResultNotContains string `yaml:"tool_result_not_contains"`
	// ToolResultError, when set, wants some result marked (or none
	// marked) as an error.
	ToolResultError *bool `yaml:"tool_result_error"`
}

// ScriptUsage overrides the token counts a turn reports (default: about
// one token per four bytes of the request and of the answer).
type ScriptUsage struct {
	InputTokens  int64 `yaml:"input_tokens"`
	OutputTokens int64 `yaml:"output_tokens"`
}

// LoadScript reads and checks a script file (YAML, or JSON, which YAML
// reads).
func LoadScript(file string) (*Script, error) {
	f, err := os.Open(file) // the operator names the script
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxScriptBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", file, err)
	}
	return ParseScript(file, data)
}

// ParseScript decodes a script strictly: an unknown key anywhere is an
// error naming the file and the turn; so is a turn with nothing to say,
// a tool call without a name, or a negative chunk or token count.
func ParseScript(file string, data []byte) (*Script, error) {
	if len(data) > MaxScriptBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, MaxScriptBytes)
	}
	var top struct {
		Turns []yaml.Node `yaml:"turns"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&top); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty script (want turns: [...])", file)
		}
		return nil, fmt.Errorf("%s: %s", file, yamlMessage(err))
	}
	if len(top.Turns) == 0 {
		return nil, fmt.Errorf("%s: no turns", file)
	}
	s := &Script{File: file}
	for i := range top.Turns {
		t, err := decodeTurn(&top.Turns[i])
		if err != nil {
			return nil, fmt.Errorf("%s: turn %d (line %d): %w", file, i+1, top.Turns[i].Line, err)
		}
		s.Turns = append(s.Turns, t)
	}
	return s, nil
}

// decodeTurn decodes one turn node strictly (yaml.Node.Decode does not
// refuse unknown fields, so the node is re-read by a strict decoder).
func decodeTurn(n *yaml.Node) (ScriptTurn, error) {
	raw, err := yaml.Marshal(n)
	if err != nil {
		return ScriptTurn{}, err
	}
	var t ScriptTurn
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return ScriptTurn{}, errors.New(strings.TrimPrefix(yamlMessage(err), "yaml: unmarshal errors:\n  "))
	}
	t.line = n.Line
	switch {
	case t.Text == "" && len(t.ToolCalls) == 0:
		return t, errors.New("a turn needs text or tool_calls")
	case t.Chunk < 0:
		return t, errors.New("chunk must not be negative")
	case t.Usage != nil && (t.Usage.InputTokens < 0 || t.Usage.OutputTokens < 0):
		return t, errors.New("usage token counts must not be negative")
	}
	for j, c := range t.ToolCalls {
		if c.Name == "" {
			return t, fmt.Errorf("tool_calls[%d]: no name", j)
		}
		if _, err := json.Marshal(c.Input); err != nil {
			return t, fmt.Errorf("tool_calls[%d] %s: input is not JSON: %w", j, c.Name, err)
		}
	}
	return t, nil
}

// Scripted is the Provider of a script: each call plays the next turn
// whose `when` holds. It is safe for concurrent use (calls are served in
// the order they take the lock).
type Scripted struct {
	name   string
	script *Script
	mu     sync.Mutex
	next   int
}

var _ Provider = (*Scripted)(nil)

// NewScripted returns a provider playing s; name is the pool entry name
// used in errors.
func NewScripted(name string, s *Script) *Scripted { return &Scripted{name: name, script: s} }

// String names the provider by its entry.
func (p *Scripted) String() string { return "llm.Provider(" + p.name + ")" }

// Remaining is the number of turns not yet played or skipped.
func (p *Scripted) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.script.Turns) - p.next
}

// Complete plays the next turn.
func (p *Scripted) Complete(ctx context.Context, req Request) (*Response, error) {
	return p.play(ctx, req)
}

// Stream plays the next turn as events: the text in the turn's chunks,
// each tool call as start, its input as one delta, end; then done.
func (p *Scripted) Stream(ctx context.Context, req Request) (Stream, error) {
	r, chunk, err := p.playChunk(ctx, req)
	if err != nil {
		return nil, err
	}
	var evs []Event
	for s := r.Text; s != ""; {
		n := len(s)
		if chunk > 0 {
			n = min(chunk, n)
		}
		evs = append(evs, Event{Kind: EventText, Text: s[:n]})
		s = s[n:]
	}
	for i, tc := range r.ToolCalls {
		evs = append(evs, Event{Kind: EventToolStart, Index: i, ToolCall: ToolCall{ID: tc.ID, Name: tc.Name}},
			Event{Kind: EventToolDelta, Index: i, Delta: string(tc.Input)},
			Event{Kind: EventToolEnd, Index: i, ToolCall: tc})
	}
	evs = append(evs, Event{Kind: EventDone, StopReason: r.StopReason, Usage: r.Usage, Model: r.Model, Attempts: 1})
	return &fakeStream{events: evs}, nil
}

func (p *Scripted) play(ctx context.Context, req Request) (*Response, error) {
	r, _, err := p.playChunk(ctx, req)
	return r, err
}

func (p *Scripted) fail(kind Kind, detail string, err error) *Error {
	return &Error{Kind: kind, Model: p.name, Provider: ProviderScripted, Detail: detail, err: err}
}

// playChunk takes the next turn whose `when` holds, checks its `expect`
// and builds the answer.
func (p *Scripted) playChunk(ctx context.Context, req Request) (*Response, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, p.fail(KindCanceled, err.Error(), err)
	}
	if err := req.Validate(); err != nil {
		return nil, 0, p.fail(KindInvalid, err.Error(), nil)
	}
	results := lastToolResults(req)
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.next < len(p.script.Turns) && !p.script.Turns[p.next].When.holds(results) {
		p.next++
	}
	if p.next >= len(p.script.Turns) {
		return nil, 0, p.fail(KindInvalid, fmt.Sprintf("%s: called after its %d turns", p.script.File, len(p.script.Turns)), ErrScriptEnd)
	}
	n := p.next
	t := p.script.Turns[n]
	p.next++
	if !t.Expect.holds(results) {
		return nil, 0, p.fail(KindInvalid, fmt.Sprintf("%s: turn %d (line %d): the last tool results do not meet expect",
			p.script.File, n+1, t.line), ErrScriptExpectation)
	}
	r := &Response{Text: t.Text, StopReason: StopEnd, Model: p.name, Attempts: 1}
	out := len(t.Text)
	for j, c := range t.ToolCalls {
		in, err := json.Marshal(c.Input)
		if err != nil || c.Input == nil {
			in = []byte("{}")
		}
		id := c.ID
		if id == "" {
			id = "call_" + strconv.Itoa(n+1) + "_" + strconv.Itoa(j+1)
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: c.Name, Input: in})
		r.StopReason = StopToolUse
		out += len(c.Name) + len(in)
	}
	r.Usage = Usage{InputTokens: tokensOf(requestBytes(req)), OutputTokens: tokensOf(out)}
	if t.Usage != nil {
		r.Usage = Usage{InputTokens: t.Usage.InputTokens, OutputTokens: t.Usage.OutputTokens}
	}
	return r, t.Chunk, nil
}

// scriptResults are the tool results of a request's last message.
type scriptResults struct {
	text    string
	anyErr  bool
	present bool
}

func lastToolResults(req Request) scriptResults {
	var r scriptResults
	if len(req.Messages) == 0 {
		return r
	}
	var b strings.Builder
	for _, part := range req.Messages[len(req.Messages)-1].Content {
		if part.Kind == PartToolResult {
			r.present = true
			r.anyErr = r.anyErr || part.ToolResult.IsError
			b.WriteString(part.ToolResult.Content)
			b.WriteByte('\n')
		}
	}
	r.text = b.String()
	return r
}

// holds reports whether c holds for r; a nil condition always holds.
func (c *ScriptCond) holds(r scriptResults) bool {
	if c == nil {
		return true
	}
	if c.ToolResultContains != "" && !strings.Contains(r.text, c.ToolResultContains) {
		return false
	}
	if c.ToolResultNotContains != "" && strings.Contains(r.text, c.ToolResultNotContains) {
		return false
	}
	if c.ToolResultError != nil && (!r.present || r.anyErr != *c.ToolResultError) {
		return false
	}
	return true
}

func requestBytes(req Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Content {
			n += len(p.Text) + len(p.ToolResult.Content) + len(p.ToolCall.Input)
		}
	}
	return n
}

// tokensOf estimates tokens as one per four bytes, at least one.
func tokensOf(n int) int64 { return max(1, int64(n+3)/4) }
