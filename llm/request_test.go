package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// conversation is a request with every kind of part: a system prompt, a
// tool the assistant called, the tool's (failed) result.
func conversation() Request {
	temp := 0.2
	return Request{
		System: "You are terse.",
		Messages: []Message{
			UserText("Weather in SF?"),
			{Role: Assistant, Content: []Part{TextPart("Checking."),
				ToolUsePart(ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"location":"SF"}`)})}},
			{Role: User, Content: []Part{ToolResultPart("call_1", "station offline", true), TextPart("And tomorrow?")}},
		},
		Tools:         []Tool{weatherTool},
		MaxTokens:     300,
		Temperature:   &temp,
		StopSequences: []string{"END"},
	}
}

// at walks a decoded JSON value along a dotted path (numbers index
// arrays) and renders what it finds, "<missing>" when it is not there.
func at(v any, path string) string {
	for _, step := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[step]; !ok {
				return "<missing>"
			}
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return "<missing>"
			}
			v = x[i]
		default:
			return "<missing>"
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var schemaWant = `{"additionalProperties":false,"properties":{"location":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"],"type":"string"}},"required":["location"],"type":"object"}`

var requestShapes = map[string][][2]string{
	"anthropic": {
		{"model", "claude-sonnet-4-5"},
		{"max_tokens", "300"},
		{"temperature", "0.2"},
		{"stop_sequences", `["END"]`},
		{"system.0.text", "You are terse."},
		{"messages.0.role", "user"},
		{"messages.0.content.0.text", "Weather in SF?"},
		{"messages.1.role", "assistant"},
		{"messages.1.content.0.text", "Checking."},
		{"messages.1.content.1.type", "tool_use"},
		{"messages.1.content.1.id", "call_1"},
		{"messages.1.content.1.input", `{"location":"SF"}`},
		{"messages.2.content.0.type", "tool_result"},
		{"messages.2.content.0.tool_use_id", "call_1"},
		{"messages.2.content.0.is_error", "true"},
		{"messages.2.content.0.content.0.text", "station offline"},
		{"messages.2.content.1.text", "And tomorrow?"},
		{"tools.0.name", "get_weather"},
		{"tools.0.description", "Current weather at a place."},
		{"tools.0.input_schema", schemaWant},
		{"stream", "<missing>"},
	},
	"openai": {
		{"model", "gpt-4.1"},
		{"max_completion_tokens", "300"},
		{"max_tokens", "<missing>"},
		{"temperature", "0.2"},
		{"stop", `["END"]`},
		{"messages.0.role", "system"},
		{"messages.0.content", "You are terse."},
		{"messages.1.role", "user"},
		{"messages.1.content", "Weather in SF?"},
		{"messages.2.role", "assistant"},
		{"messages.2.content", "Checking."},
		{"messages.2.tool_calls.0.id", "call_1"},
		{"messages.2.tool_calls.0.type", "function"},
		{"messages.2.tool_calls.0.function.name", "get_weather"},
		{"messages.2.tool_calls.0.function.arguments", `{"location":"SF"}`},
		{"messages.3.role", "tool"},
		{"messages.3.tool_call_id", "call_1"},
		{"messages.3.content", "[tool error] station offline"},
		{"messages.4.role", "user"},
		{"messages.4.content", "And tomorrow?"},
		{"tools.0.type", "function"},
		{"tools.0.function.name", "get_weather"},
		{"tools.0.function.parameters", schemaWant},
	},
	"ollama": {
		{"model", "llama3.2"},
		{"max_tokens", "300"},
		{"max_completion_tokens", "<missing>"},
		{"messages.3.role", "tool"},
		{"tools.0.function.parameters", schemaWant},
	},
	"gemini": {
		{"model", "<missing>"},
		{"systemInstruction.parts.0.text", "You are terse."},
		{"generationConfig.maxOutputTokens", "300"},
		{"generationConfig.temperature", "0.2"},
		{"generationConfig.stopSequences", `["END"]`},
		{"contents.0.role", "user"},
		{"contents.0.parts.0.text", "Weather in SF?"},
		{"contents.1.role", "model"},
		{"contents.1.parts.0.text", "Checking."},
		{"contents.1.parts.1.functionCall.name", "get_weather"},
		{"contents.1.parts.1.functionCall.id", "call_1"},
		{"contents.1.parts.1.functionCall.args", `{"location":"SF"}`},
		{"contents.2.role", "user"},
		{"contents.2.parts.0.functionResponse.name", "get_weather"},
		{"contents.2.parts.0.functionResponse.response", `{"error":"station offline"}`},
		{"contents.2.parts.1.text", "And tomorrow?"},
		{"tools.0.functionDeclarations.0.name", "get_weather"},
		{"tools.0.functionDeclarations.0.parametersJsonSchema", schemaWant},
	},
}

func TestRequestShape(t *testing.T) {
	for _, k := range kits {
		t.Run(k.name, func(t *testing.T) {
			p, ws, _ := setup(t, k, nil, reply{file: "text.json"})
			if _, err := p.Complete(context.Background(), conversation()); err != nil {
				t.Fatalf("complete: %v", err)
			}
			body := ws.requests()[0].Body
			for _, c := range requestShapes[k.name] {
				if got := at(body, c[0]); got != c[1] {
					t.Errorf("%s: got %s, want %s", c[0], got, c[1])
				}
			}
		})
	}
}

// TestGeminiSyntheticIDs: a function call that came without an id gets
// one of ours, which is not sent back to the API; the result still
// names its function.
func TestGeminiSyntheticIDs(t *testing.T) {
	k := kits[3]
	p, ws, _ := setup(t, k, nil, reply{file: "tool.json"}, reply{file: "text.json"})
	resp, err := p.Complete(context.Background(), weatherRequest())
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	tc := resp.ToolCalls[0]
	expectEqual(t, "synthetic id", tc.ID, geminiCallPrefix+"0")
	req := weatherRequest()
	req.Messages = append(req.Messages, Message{Role: Assistant, Content: []Part{ToolUsePart(tc)}},
		Message{Role: User, Content: []Part{ToolResultPart(tc.ID, "18C", false)}})
	if _, err := p.Complete(context.Background(), req); err != nil {
		t.Fatalf("complete: %v", err)
	}
	body := ws.requests()[1].Body
	expectEqual(t, "call id sent", at(body, "contents.1.parts.0.functionCall.id"), "<missing>")
	expectEqual(t, "response id sent", at(body, "contents.2.parts.0.functionResponse.id"), "<missing>")
	expectEqual(t, "response name", at(body, "contents.2.parts.0.functionResponse.name"), "get_weather")
	expectEqual(t, "response", at(body, "contents.2.parts.0.functionResponse.response"), `{"result":"18C"}`)
}

func TestInvalidRequestNotSent(t *testing.T) {
	bad := map[string]Request{
		"no messages":        {},
		"unknown role":       {Messages: []Message{{Role: "system", Content: []Part{TextPart("x")}}}},
		"empty content":      {Messages: []Message{{Role: User}}},
		"tool use from user": {Messages: []Message{{Role: User, Content: []Part{ToolUsePart(ToolCall{ID: "a", Name: "b"})}}}},
		"orphan result":      {Messages: []Message{{Role: User, Content: []Part{ToolResultPart("nope", "x", false)}}}},
		"bad schema":         {Messages: []Message{UserText("x")}, Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}},
		"schema not object":  {Messages: []Message{UserText("x")}, Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}}},
		"tool without name":  {Messages: []Message{UserText("x")}, Tools: []Tool{{}}},
		"bad tool input": {Messages: []Message{UserText("x"), {Role: Assistant, Content: []Part{
			ToolUsePart(ToolCall{ID: "a", Name: "b", Input: json.RawMessage(`"str"`)})}}}},
		"negative max tokens": {Messages: []Message{UserText("x")}, MaxTokens: -1},
		"bad model override":  {Model: "x y", Messages: []Message{UserText("x")}},
	}
	for _, k := range kits {
		for name, req := range bad {
			t.Run(fmt.Sprintf("%s/%s", k.name, name), func(t *testing.T) {
				p, ws, _ := setup(t, k, nil, reply{file: "text.json"})
				_, err := p.Complete(context.Background(), req)
				e := asError(t, err)
				expectEqual(t, "kind", e.Kind, KindInvalid)
				_, err = p.Stream(context.Background(), req)
				expectEqual(t, "stream kind", asError(t, err).Kind, KindInvalid)
				expectEqual(t, "requests", len(ws.requests()), 0)
			})
		}
	}
}

// TestGeminiModelInURL: a model id that would change the URL's method
// is refused before anything is sent.
func TestGeminiModelInURL(t *testing.T) {
	p, ws, _ := setup(t, kits[3], nil, reply{file: "text.json"})
	req := helloRequest()
	req.Model = "gemini-2.5-flash:streamGenerateContent"
	_, err := p.Complete(context.Background(), req)
	expectEqual(t, "kind", asError(t, err).Kind, KindInvalid)
	req.Model = "models/gemini-2.5-flash"
	if _, err := p.Complete(context.Background(), req); err != nil {
		t.Fatalf("models/ prefix: %v", err)
	}
	expectEqual(t, "requests", len(ws.requests()), 1)
	expectEqual(t, "path", ws.requests()[0].Path, kits[3].path)
}
