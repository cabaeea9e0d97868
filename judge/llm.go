package judge

import (
	"context"

	"github.com/parallax/parallax/llm"
)

// FromLLM adapts a configured language model to the judge: one system
// prompt, one user message, no tools, temperature 0, a short answer.
func FromLLM(p llm.Provider, ref llm.ModelRef) Model { return llmModel{p: p, ref: ref} }

type llmModel struct {
	p   llm.Provider
	ref llm.ModelRef
}

func (m llmModel) Name() string { return string(m.ref.Provider) + "/" + m.ref.Model }

func (m llmModel) Ask(ctx context.Context, system, user string) (Reply, error) {
	zero := 0.0
	resp, err := m.p.Complete(ctx, llm.Request{System: system, MaxTokens: 300, Temperature: &zero,
		Messages: []llm.Message{{Role: llm.User, Content: []llm.Part{llm.TextPart(user)}}}})
	if err != nil {
		return Reply{}, err
	}
	return Reply{Text: resp.Text, InputTokens: int(resp.Usage.InputTokens), OutputTokens: int(resp.Usage.OutputTokens)}, nil
}
