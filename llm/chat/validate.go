package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Validate checks a request before anything is sent: the shape errors a
// provider would reject anyway, found here with their position.
func (r *Request) Validate() error {
	if len(r.Messages) == 0 {
		return errors.New("request has no messages")
	}
	if r.MaxTokens < 0 {
		return fmt.Errorf("max tokens %d is negative", r.MaxTokens)
	}
	for i, t := range r.Tools {
		if t.Name == "" {
			return fmt.Errorf("tool %d has no name", i)
		}
		if err := checkSchema(t.InputSchema); err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
	}
	calls := map[string]bool{}
	for i, m := range r.Messages {
		if m.Role != User && m.Role != Assistant {
			return fmt.Errorf("message %d: role %q (want user or assistant)", i, m.Role)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d: no content", i)
		}
		for j, p := range m.Content {
			if err := p.validate(m.Role); err != nil {
				return fmt.Errorf("message %d part %d: %w", i, j, err)
			}
			switch p.Kind {
			case PartToolUse:
				calls[p.ToolCall.ID] = true
			case PartToolResult:
				if !calls[p.ToolResult.ID] {
					return fmt.Errorf("message %d part %d: tool result %q answers no earlier tool use", i, j, p.ToolResult.ID)
				}
			case PartText:
			}
		}
	}
	return nil
}

func (p *Part) validate(role MessageRole) error {
	switch p.Kind {
	case PartText:
		return nil
	case PartToolUse:
		if role != Assistant {
			return errors.New("tool use in a user message")
		}
		if p.ToolCall.ID == "" || p.ToolCall.Name == "" {
			return errors.New("tool use without id or name")
		}
		if len(p.ToolCall.Input) > 0 && !isJSONObject(p.ToolCall.Input) {
			return fmt.Errorf("tool use %q: input is not a JSON object", p.ToolCall.ID)
		}
		return nil
	case PartToolResult:
		if role != User {
			return errors.New("tool result in an assistant message")
		}
		if p.ToolResult.ID == "" {
			return errors.New("tool result without id")
		}
		return nil
	}
	return fmt.Errorf("unknown part kind %d", p.Kind)
}

// checkSchema accepts an empty schema (no parameters) or a JSON object
// whose type, if given, is "object".
func checkSchema(s json.RawMessage) error {
	if len(s) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(s, &m); err != nil || m == nil {
		return errors.New("input schema is not a JSON object")
	}
	if t, ok := m["type"]; ok && string(t) != `"object"` {
		return fmt.Errorf("input schema type is %s (want \"object\")", t)
	}
	return nil
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

// ToolInput turns the arguments a model produced for a tool call into a
// JSON object: empty means {}; anything else must be a valid object.
func ToolInput(raw string) (json.RawMessage, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	if !isJSONObject([]byte(s)) {
		return nil, errors.New("tool call arguments are not a JSON object")
	}
	return json.RawMessage(s), nil
}
