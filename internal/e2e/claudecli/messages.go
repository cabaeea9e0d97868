package claudecli

import (
	"encoding/json"
	"strings"
)

// Message is one message of a Messages request. Content is a string or
// a list of blocks on the wire; Blocks holds it as blocks either way.
type Message struct {
	Role   string
	Blocks []Block
}

// Block is one content block of a request message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`          // tool_use
	Name      string          `json:"name,omitempty"`        // tool_use
	Input     json.RawMessage `json:"input,omitempty"`       // tool_use
	ToolUseID string          `json:"tool_use_id,omitempty"` // tool_result
	IsError   bool            `json:"is_error,omitempty"`    // tool_result
	Content   json.RawMessage `json:"content,omitempty"`     // tool_result: string or blocks
}

// UnmarshalJSON accepts both content forms.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	var s string
	if err := json.Unmarshal(raw.Content, &s); err == nil {
		m.Blocks = []Block{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Blocks)
}

// Text is the text of the message's text blocks, joined by newlines.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ResultText is a tool_result block's content as text.
func (b Block) ResultText() string {
	if len(b.Content) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(b.Content, &s); err == nil {
		return s
	}
	var blocks []Block
	if err := json.Unmarshal(b.Content, &blocks); err != nil {
		return string(b.Content)
	}
	var parts []string
	for _, c := range blocks {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResult is what the CLI sent back for one tool_use.
type ToolResult struct {
	ToolUseID string
	Text      string
	IsError   bool
}

// ToolResult finds the result the CLI sent for the tool_use with this id
// in any recorded Messages request.
func (f *FakeAPI) ToolResult(id string) (ToolResult, bool) {
	for _, m := range f.Messages() {
		for _, b := range m.Blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return ToolResult{ToolUseID: id, Text: b.ResultText(), IsError: b.IsError}, true
			}
		}
	}
	return ToolResult{}, false
}

// Messages is every message of every recorded Messages request.
func (f *FakeAPI) Messages() []Message {
	var out []Message
	for _, r := range f.Requests() {
		if r.Path != "/v1/messages" {
			continue
		}
		var req messagesRequest
		if json.Unmarshal(r.Body, &req) == nil {
			out = append(out, req.Messages...)
		}
	}
	return out
}

// Tools is the tools array of the first recorded Messages request that
// carries tools (the main agent loop's tool list), or nil.
func (f *FakeAPI) Tools() []json.RawMessage {
	for _, r := range f.Requests() {
		if r.Path != "/v1/messages" {
			continue
		}
		var req messagesRequest
		if json.Unmarshal(r.Body, &req) == nil && len(req.Tools) > 0 {
			return req.Tools
		}
	}
	return nil
}
