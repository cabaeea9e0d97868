package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
)

// The doors tests of issue 19 ("the engine's doors hold") reuse the
// hands harness (newHands: the production configuration, the agent's
// sandbox on) with a model that proposes any tool, several per answer.

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

// runPlain runs plain `parallax run prompt` (not --json) and returns its
// stdout, which must end normally.
func (h *hands) runPlain(prompt string) []byte {
	h.t.Helper()
	c := exec.Command(h.bin, "run", prompt) //nolint:gosec // built by the test
	c.Dir, c.Env = h.root, h.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		h.t.Fatalf("parallax run: %v\nstdout: %q\nstderr:\n%s", err, out, stderr.String())
	}
	return out
}

// px runs a parallax command in the scenario's environment in dir and
// returns its combined output.
func (h *hands) px(dir string, args ...string) (string, error) {
	h.t.Helper()
	c := exec.Command(h.bin, args...) //nolint:gosec // built by the test
	c.Dir, c.Env = dir, h.env
	out, err := c.CombinedOutput()
	return string(out), err
}

// startEngine starts a detached engine in dir, stopped when the test
// ends.
func (h *hands) startEngine(dir string) {
	h.t.Helper()
	if out, err := h.px(dir, "start", "--detach"); err != nil {
		h.t.Fatalf("start --detach: %v\n%s", err, out)
	}
	h.t.Cleanup(func() { _, _ = h.px(dir, "stop") })
}

// toolResultsSeen is every tool result the model received (the "tool"
// messages of its requests), as one string: unlike modelSaw it leaves
// out the model's own calls, whose arguments may name a value.
func (h *hands) toolResultsSeen() string {
	var b strings.Builder
	for _, req := range h.fake.requests() {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			if mm, _ := m.(map[string]any); mm["role"] == "tool" {
				fmt.Fprintf(&b, "%v\n", mm["content"])
			}
		}
	}
	return b.String()
}
