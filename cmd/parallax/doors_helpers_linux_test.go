package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The doors tests of issue 19 ("the engine's doors hold") reuse the
// hands harness (newHands: the production configuration, the agent's
// sandbox on) with a model that proposes any tool, several per answer.

// toolCall is one call of a scripted model answer.
type toolCall struct {
	id, name string
	args     map[string]any
}

// sseToolCalls answers with several tool calls at once, as models that
// call tools in parallel do: each call's arguments in two deltas.
func sseToolCalls(calls ...toolCall) func(http.ResponseWriter) {
	chunks := []string{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"On it."},"finish_reason":null}]}`}
	for i, c := range calls {
		a, _ := json.Marshal(c.args)
		half := len(a) / 2
		chunks = append(chunks,
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]},"finish_reason":null}]}`, i, c.id, c.name),
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]},"finish_reason":null}]}`, i, a[:half]),
			fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%q}}]},"finish_reason":null}]}`, i, a[half:]))
	}
	return sse(append(chunks, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)...)
}

// runScripted scripts the model's answers (a final "Done." added) and
// runs one turn of `parallax run --json`.
func (h *hands) runScripted(prompt string, answers ...func(http.ResponseWriter)) turn {
	h.t.Helper()
	h.fake.script(append(answers, sseText("Done."))...)
	return h.runTurn(prompt)
}

// result is the tool result of the call with id, and whether it was ok.
func (tr turn) result(id string) (string, bool, bool) {
	for _, ev := range tr.events {
		if ev.Type == "tool_result" && ev.CallID == id {
			return ev.Output, ev.OK != nil && *ev.OK, true
		}
	}
	return "", false, false
}

// decision is the gate's verdict on the call with id ("ALLOW:rule"), or
// "none".
func (tr turn) decision(id string) string {
	for _, ev := range tr.events {
		if ev.Type == "verdict" && ev.CallID == id {
			return ev.Decision + ":" + ev.Rule
		}
	}
	return "none"
}

// ended reports whether the turn ended in its reply.
func (tr turn) ended(reply string) bool {
	n := len(tr.events)
	return n > 0 && tr.events[n-1].Type == "response_complete" && strings.HasSuffix(tr.events[n-1].Text, reply)
}
