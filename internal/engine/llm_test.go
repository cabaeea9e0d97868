package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/llm/chat"
)

// fixedModels serves one provider for every role.
type fixedModels struct {
	p   llm.Provider
	ref llm.ModelRef
}

func (m fixedModels) ForRole(llm.Role) (llm.Provider, llm.ModelRef, error) { return m.p, m.ref, nil }

var brokerDay = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// newBroker is a broker over a real workspace database and chain with
// a fake provider answering with the given usage.
func newBroker(t *testing.T, cfg BrokerConfig, turns ...llm.FakeTurn) (*Broker, *llm.FakeProvider, *env) {
	t.Helper()
	e := newEnv(t, envOptions{})
	fake := llm.NewFake(turns...)
	if cfg.Models == nil {
		cfg.Models = fixedModels{fake, llm.ModelRef{Name: "main", Provider: llm.ProviderAnthropic, Model: "claude-sonnet-4-5"}}
	}
	cfg.Usage, cfg.Audit, cfg.Now = e.ws.DB, e.ws.Audit, func() time.Time { return brokerDay }
	if cfg.DailyBudgetUSD == 0 {
		cfg.DailyBudgetUSD = 1
	}
	b, err := NewBroker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b, fake, e
}

// costly is an answer of 1000 input and 100 output tokens: $0.0045 at
// claude-sonnet-4's list price (3 and 15 USD per million).
func costly(text string) llm.FakeTurn {
	return llm.FakeTurn{Response: &llm.Response{Text: text, StopReason: llm.StopEnd, Model: "claude-sonnet-4-5",
		Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}}}
}

func ask(s string) llm.Request { return llm.Request{Messages: []llm.Message{llm.UserText(s)}} }

func TestBrokerRecordsUsage(t *testing.T) {
	b, _, e := newBroker(t, BrokerConfig{}, costly("the secret plan is ready"))
	var got []llm.EventKind
	resp, err := b.Stream(context.Background(), "s1", llm.RoleChat, ask("hello"), func(ev llm.Event) error {
		got = append(got, ev.Kind)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "the secret plan is ready" || len(got) == 0 || got[len(got)-1] != llm.EventDone {
		t.Fatalf("got %q with events %v", resp.Text, got)
	}
	u, err := e.ws.DB.LLMTotals(context.Background(), store.Day(brokerDay), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if u.Calls != 1 || u.InputTokens != 1000 || u.OutputTokens != 100 || u.CostMicroUSD != 4500 {
		t.Errorf("usage: got %+v, want 1 call, 1000/100 tokens, 4500 micro-USD", u)
	}
	var entry *audit.Entry
	for _, en := range e.entries() {
		if en.Type == audit.LLMUsage {
			entry = &en
		}
	}
	if entry == nil || entry.Detail.Count != 1100 || entry.Detail.Ref != "main" || entry.Session != "s1" {
		t.Fatalf("LLMUsage entry: got %+v", entry)
	}
	raw, err := os.ReadFile(audit.DefaultPath(e.root))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "secret plan") || strings.Contains(string(raw), "hello") {
		t.Error("the audit chain holds the conversation's content")
	}
}

func TestBrokerBudgets(t *testing.T) {
	cases := []struct {
		name           string
		daily, session float64
		calls          []string // sessions, in order
		want           []bool   // served
	}{
		// $0.0045 a call: the third starts at $0.009 >= $0.005.
		{"daily", 0.005, 0, []string{"a", "b", "a"}, []bool{true, true, false}},
		{"session", 1, 0.004, []string{"a", "a", "b", "b", "b"}, []bool{true, false, true, false, false}},
		// A budget is spent when the spend reaches it, not only when it
		// passes it: two calls spend exactly $0.009.
		{"daily reached exactly", 0.009, 0, []string{"a", "b", "a"}, []bool{true, true, false}},
		{"session reached exactly", 1, 0.0045, []string{"a", "a", "b"}, []bool{true, false, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var turns []llm.FakeTurn
			for range c.calls {
				turns = append(turns, costly("ok"))
			}
			b, fake, e := newBroker(t, BrokerConfig{DailyBudgetUSD: c.daily, SessionBudgetUSD: c.session}, turns...)
			served := 0
			for i, s := range c.calls {
				_, err := b.Complete(context.Background(), s, llm.RoleChat, ask("go"))
				var ref *RefusalError
				switch {
				case c.want[i] && err != nil:
					t.Fatalf("call %d (%s): got %v, want served", i, s, err)
				case !c.want[i] && (!errors.As(err, &ref) || ref.Rule != RuleBudgetExceeded):
					t.Fatalf("call %d (%s): got %v, want %s", i, s, err, RuleBudgetExceeded)
				}
				if c.want[i] {
					served++
				}
			}
			if got := len(fake.Calls()); got != served {
				t.Errorf("provider calls: got %d, want %d (a refused call must not reach it)", got, served)
			}
			var exhausted int
			for _, en := range e.entries() {
				if en.Type == audit.BudgetExhausted && en.Rule == RuleBudgetExceeded {
					exhausted++
				}
			}
			if exhausted != len(c.calls)-served {
				t.Errorf("BudgetExhausted entries: got %d, want %d", exhausted, len(c.calls)-served)
			}
		})
	}
}

func TestBrokerOutboundDLP(t *testing.T) {
	cases := []struct {
		name    string
		scan    bool
		prompt  string
		refused bool
	}{
		{"token leaves: refused", true, "deploy with " + testToken, true},
		{"token, scan off", false, "deploy with " + testToken, false},
		{"plain text", true, "list the files", false},
		{"marking only", true, "this memo is TOP SECRET", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, fake, _ := newBroker(t, BrokerConfig{ScanOutbound: c.scan}, costly("ok"))
			_, err := b.Complete(context.Background(), "s1", llm.RoleChat, ask(c.prompt))
			var ref *RefusalError
			if refused := errors.As(err, &ref) && ref.Rule == RuleOutboundSecret; refused != c.refused {
				t.Fatalf("got %v, want refused %v", err, c.refused)
			}
			if c.refused && (len(fake.Calls()) != 0 || strings.Contains(err.Error(), testToken)) {
				t.Error("the request reached the provider, or the refusal echoes the secret")
			}
		})
	}
}

func TestBrokerRefusesUnknownPriceAndFailures(t *testing.T) {
	fake := llm.NewFake(costly("ok"))
	b, _, _ := newBroker(t, BrokerConfig{Models: fixedModels{fake, llm.ModelRef{Name: "x", Provider: llm.ProviderOpenAI, Model: "mystery-1"}}})
	_, err := b.Complete(context.Background(), "s1", llm.RoleChat, ask("go"))
	var ref *RefusalError
	if !errors.As(err, &ref) || ref.Rule != RulePriceUnknown || len(fake.Calls()) != 0 {
		t.Fatalf("unknown price: got %v", err)
	}
	for base, free := range map[string]bool{"http://127.0.0.1:8080/v1": true, "http://localhost:1234/v1": true,
		"http://[::1]:8000/v1": true, "https://llm.example.com/v1": false, "http://127.0.0.1.nip.io/v1": false, "": false} {
		ref := llm.ModelRef{Name: "local", Provider: llm.ProviderOpenAICompatible, Model: "my-gguf", BaseURL: base}
		if _, ok := priceOf(ref, nil); ok != free {
			t.Errorf("openai_compatible at %q: priced=%v, want %v (loopback servers are free unless priced)", base, ok, free)
		}
	}
	failing := llm.NewFake(llm.FakeTurn{Err: &llm.Error{Kind: llm.KindRateLimited, Model: "main", Detail: "429"}})
	b2, _, e2 := newBroker(t, BrokerConfig{Models: fixedModels{failing, llm.ModelRef{Name: "main", Provider: llm.ProviderOllama, Model: "qwen3"}}})
	_, err = b2.Complete(context.Background(), "s1", llm.RoleChat, ask("go"))
	if !errors.As(err, &ref) || ref.Rule != RuleLLMError {
		t.Fatalf("provider failure: got %v, want %s", err, RuleLLMError)
	}
	// What the user reads: the model's call failed; Parallax refused
	// nothing.
	if msg := err.Error(); strings.Contains(msg, "refused by Parallax") || !strings.HasPrefix(msg, "the model call failed: ") {
		t.Errorf("provider failure reads %q, want it to say the model call failed, not that Parallax refused it", msg)
	}
	u, _ := e2.ws.DB.LLMTotals(context.Background(), store.Day(brokerDay), "s1")
	if u.Calls != 1 {
		t.Errorf("a failed call is counted: got %d calls, want 1", u.Calls)
	}
}

// TestOpenBrokerScripted wires the broker from config.yaml: a scripted
// chat model, a price for it, the budget of agent.daily_budget_usd.
func TestOpenBrokerScripted(t *testing.T) {
	e := newEnv(t, envOptions{})
	script := e.home + "/script.yaml"
	writeFile(t, script, "turns:\n  - text: one\n    usage: {input_tokens: 1000000, output_tokens: 0}\n  - text: two\n")
	cfg := "version: 1\npolicy: default\nllm:\n  models:\n    - {name: demo, provider: scripted, model: replay, script: " + script +
		"}\n  roles: {chat: demo}\nagent:\n  daily_budget_usd: 0.5\n  prices: {replay: {input_per_mtok: 1, output_per_mtok: 1}}\n"
	writeFile(t, workspace.ConfigPath(e.root), cfg)
	ws, err := workspace.Open(context.Background(), e.root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	b, err := OpenBroker(ws, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Complete(context.Background(), "s1", llm.RoleChat, ask("hi"))
	if err != nil || r.Text != "one" {
		t.Fatalf("first: got %+v %v", r, err)
	}
	// One million input tokens at $1: $1 spent of $0.5.
	_, err = b.Complete(context.Background(), "s1", llm.RoleChat, ask("again"))
	var ref *RefusalError
	if !errors.As(err, &ref) || ref.Rule != RuleBudgetExceeded {
		t.Fatalf("second: got %v, want %s", err, RuleBudgetExceeded)
	}
}

// TestBrokerAgentGone: when the events cannot be passed on (the agent
// went away), the call ends with an error and its usage still counts.
func TestBrokerAgentGone(t *testing.T) {
	b, _, e := newBroker(t, BrokerConfig{}, costly("a long answer that is streamed in pieces"))
	gone := errors.New("agent link closed")
	_, err := b.Stream(context.Background(), "s1", llm.RoleChat, ask("go"), func(llm.Event) error { return gone })
	var ref *RefusalError
	if !errors.As(err, &ref) || ref.Rule != RuleLLMError || !errors.Is(err, gone) {
		t.Fatalf("got %v, want %s wrapping the link error", err, RuleLLMError)
	}
	u, err := e.ws.DB.LLMTotals(context.Background(), store.Day(brokerDay), "s1")
	if err != nil || u.Calls != 1 {
		t.Errorf("usage: got %+v %v, want the call counted", u, err)
	}
}

// TestBrokerMasksTheModelsOwnSecrets: a secret the model itself wrote
// earlier (a key typed into a proposal the gate refused) is masked in the
// requests that follow, audited, instead of failing every later request;
// the same secret in the user's text still refuses the request.
func TestBrokerMasksTheModelsOwnSecrets(t *testing.T) {
	b, fake, e := newBroker(t, BrokerConfig{ScanOutbound: true}, costly("ok"), costly("ok"))
	input, _ := json.Marshal(map[string]string{"command": "curl -H 'Authorization: token " + testToken + "' https://api.github.com"})
	req := llm.Request{Messages: []llm.Message{
		llm.UserText("check the API"),
		{Role: chat.Assistant, Content: []chat.Part{chat.TextPart("using " + testToken), chat.ToolUsePart(chat.ToolCall{ID: "c1", Name: "execute_command", Input: input})}},
		{Role: chat.User, Content: []chat.Part{{Kind: chat.PartToolResult, ToolResult: chat.ToolResult{ID: "c1", Content: "blocked by Parallax", IsError: true}}}},
	}}
	if _, err := b.Complete(context.Background(), "s1", llm.RoleChat, req); err != nil {
		t.Fatalf("a request whose only secret is the model's own earlier output: %v", err)
	}
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("provider calls: %d, want 1", len(calls))
	}
	sent := calls[0].Messages[1]
	if strings.Contains(sent.Content[0].Text, testToken) || strings.Contains(string(sent.Content[1].ToolCall.Input), testToken) ||
		!json.Valid(sent.Content[1].ToolCall.Input) {
		t.Errorf("the model's own secret was sent again or the input broke: %+v", sent)
	}
	if !strings.Contains(string(req.Messages[1].Content[1].ToolCall.Input), testToken) {
		t.Error("the caller's request was changed in place")
	}
	masked := false
	for _, en := range e.entries() {
		masked = masked || en.Rule == RuleOutboundMasked
	}
	if !masked {
		t.Error("no audit entry for the masking")
	}
	req.Messages = append(req.Messages, llm.UserText("now use "+testToken))
	_, err := b.Complete(context.Background(), "s1", llm.RoleChat, req)
	var ref *RefusalError
	if !errors.As(err, &ref) || ref.Rule != RuleOutboundSecret || len(fake.Calls()) != 1 {
		t.Errorf("a secret in the user's text: got %v, want %s and no provider call", err, RuleOutboundSecret)
	}
}
