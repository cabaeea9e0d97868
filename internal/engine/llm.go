package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/llm/chat"
	"github.com/parallax/parallax/shield"
)

// Reason codes of the LLM broker's refusals and failures.
const (
	RuleBudgetExceeded = "llm_budget_exceeded"
	RuleOutboundSecret = "llm_outbound_secret"
	RulePriceUnknown   = "llm_price_unknown"
	RuleLLMUnavailable = "llm_unavailable"
	RuleLLMError       = "llm_error"
	RuleUsageError     = "llm_usage_error"
)

// Detail code of a brokered call that completed.
const CodeLLMCall = "llm_call"

// Models hands out the provider of a role, holding its key (*llm.Pool).
type Models interface {
	ForRole(role llm.Role) (llm.Provider, llm.ModelRef, error)
}

var _ Models = (*llm.Pool)(nil)

// UsageStore keeps what LLM calls consumed per day and session
// (*store.DB).
type UsageStore interface {
	AddLLMUsage(ctx context.Context, u store.LLMUsage) error
	LLMTotals(ctx context.Context, day, session string) (store.LLMUsage, error)
}

var _ UsageStore = (*store.DB)(nil)

// BrokerConfig is an LLM broker's parts.
type BrokerConfig struct {
	Models Models
	Usage  UsageStore
	Audit  shield.Appender
	// DailyBudgetUSD bounds all sessions' spend per UTC day (> 0);
	// SessionBudgetUSD one session's (0: none).
	DailyBudgetUSD, SessionBudgetUSD float64
	// Prices override the built-in table, by model name.
	Prices map[string]Price
	// ScanOutbound refuses requests whose text holds secrets (DLP class
	// secret that DLP masks or blocks: keys, tokens, credentials; markings
	// it only monitors pass) before they leave for the
	// provider.
	ScanOutbound bool
	DLP          *dlp.Detector // nil: the shipped scanners
	Now          func() time.Time
}

// Broker makes the agent's LLM calls: the agent sends requests without
// any key; the broker holds the keys (through Models), checks budgets
// and what leaves, calls the provider, streams its events back, and
// records and audits the usage. Safe for concurrent use; concurrent
// calls of one session may together pass the budget by what they cost.
type Broker struct {
	cfg       BrokerConfig
	dlp       *dlp.Detector
	mu        sync.Mutex
	providers map[llm.Role]cachedProvider
}

type cachedProvider struct {
	p   llm.Provider
	ref llm.ModelRef
}

// RefusalError is a request the broker refused or could not serve; Rule
// is its reason code.
type RefusalError struct {
	Rule, Reason string
	Err          error // the cause, when there is one
}

// Error says who stopped the request: Parallax for a refusal, the model
// (its provider, the link to it) for a call that failed (llm_error),
// which Parallax did not refuse. The code travels beside the text (Rule,
// the agent's error code), so a failure does not repeat it.
func (e *RefusalError) Error() string {
	if e.Rule == RuleLLMError {
		return e.Reason
	}
	return "refused by Parallax (" + e.Rule + "): " + e.Reason
}

func (e *RefusalError) Unwrap() error { return e.Err }

// NewBroker checks cfg and returns its broker.
func NewBroker(cfg BrokerConfig) (*Broker, error) {
	if cfg.Models == nil || cfg.Usage == nil || cfg.Audit == nil {
		return nil, errors.New("llm broker: models, a usage store and an audit chain are required")
	}
	if !(cfg.DailyBudgetUSD > 0) || cfg.SessionBudgetUSD < 0 {
		return nil, fmt.Errorf("llm broker: the daily budget must be positive and the session budget not negative")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Broker{cfg: cfg, dlp: cfg.DLP, providers: map[llm.Role]cachedProvider{}}
	if b.dlp == nil {
		d, err := dlp.New()
		if err != nil {
			return nil, fmt.Errorf("llm broker: dlp: %w", err)
		}
		b.dlp = d
	}
	return b, nil
}

// provider returns the role's provider, built once (a scripted model
// keeps its place in the script; a key is read from the environment on
// first use).
func (b *Broker) provider(role llm.Role) (cachedProvider, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.providers[role]; ok {
		return c, nil
	}
	p, ref, err := b.cfg.Models.ForRole(role)
	if err != nil {
		return cachedProvider{}, err
	}
	c := cachedProvider{p: p, ref: ref}
	b.providers[role] = c
	return c, nil
}

// Complete is Stream without events: the whole answer.
func (b *Broker) Complete(ctx context.Context, session string, role llm.Role, req llm.Request) (*llm.Response, error) {
	return b.Stream(ctx, session, role, req, nil)
}

// Stream serves one LLM request of the agent's session: budget, price
// and outbound checks, then the provider's stream, each event passed to
// emit (nil: none) as it arrives, then usage recorded and audited. The
// request's Model is ignored: the engine's configuration picks the
// model. A refusal is a *RefusalError, audited.
func (b *Broker) Stream(ctx context.Context, session string, role llm.Role, req llm.Request, emit func(llm.Event) error) (*llm.Response, error) {
	c, err := b.provider(role)
	if err != nil {
		return nil, b.refuse(ctx, session, audit.LLMUsage, "", RuleLLMUnavailable,
			"no model serves role "+string(role)+": "+b.mask(err.Error()), err)
	}
	price, ok := priceOf(c.ref, b.cfg.Prices)
	if !ok {
		return nil, b.refuse(ctx, session, audit.LLMUsage, c.ref.Name, RulePriceUnknown, "the price of model "+
			c.ref.Model+" is unknown, so its cost cannot be held against the budget (set agent.prices)", nil)
	}
	if err := b.checkBudget(ctx, session, c.ref.Name); err != nil {
		return nil, err
	}
	if b.cfg.ScanOutbound {
		var masked []string
		if req, masked = b.maskModelOutput(req); len(masked) > 0 {
			if err := b.noteMasked(ctx, session, c.ref.Name, masked); err != nil {
				return nil, err
			}
		}
		if found := b.secretsIn(req); len(found) > 0 {
			return nil, b.refuse(ctx, session, audit.LLMUsage, c.ref.Name, RuleOutboundSecret,
				"the request holds secrets ("+strings.Join(found, ", ")+") that must not leave for the provider", nil)
		}
	}
	req.Model = ""
	start := b.cfg.Now()
	resp, callErr := b.call(ctx, c.p, req, emit)
	if err := b.record(ctx, session, c.ref, price, resp, callErr, b.cfg.Now().Sub(start)); err != nil {
		// Events already passed to emit stay passed: the error tells the
		// caller to discard that answer.
		return nil, err
	}
	return resp, nil
}

// checkBudget refuses when today's spend (all sessions, or this one)
// has reached its budget. A store that cannot be read refuses too.
func (b *Broker) checkBudget(ctx context.Context, session, model string) error {
	day := store.Day(b.cfg.Now())
	all, err := b.cfg.Usage.LLMTotals(ctx, day, "")
	var mine store.LLMUsage
	if err == nil && b.cfg.SessionBudgetUSD > 0 {
		mine, err = b.cfg.Usage.LLMTotals(ctx, day, session)
	}
	if err != nil {
		return b.refuse(ctx, session, audit.LLMUsage, model, RuleUsageError,
			"the usage so far could not be read, so the budget cannot be checked; refused", err)
	}
	if spent := usd(all.CostMicroUSD); spent >= b.cfg.DailyBudgetUSD {
		return b.refuse(ctx, session, audit.BudgetExhausted, model, RuleBudgetExceeded, fmt.Sprintf(
			"the daily LLM budget of $%.2f is spent ($%.4f today); it renews at 00:00 UTC or with agent.daily_budget_usd",
			b.cfg.DailyBudgetUSD, spent), nil)
	}
	if spent := usd(mine.CostMicroUSD); b.cfg.SessionBudgetUSD > 0 && spent >= b.cfg.SessionBudgetUSD {
		return b.refuse(ctx, session, audit.BudgetExhausted, model, RuleBudgetExceeded, fmt.Sprintf(
			"this session's LLM budget of $%.2f is spent ($%.4f today; agent.session_budget_usd)",
			b.cfg.SessionBudgetUSD, spent), nil)
	}
	return nil
}

func usd(micro int64) float64 { return float64(micro) / 1e6 }

// secretsIn names the DLP scanners of class secret that match what the
// request would send: the system prompt, texts, tool results, tool
// inputs.
func (b *Broker) secretsIn(req llm.Request) []string {
	seen := map[string]bool{}
	scan := func(s string) {
		if s == "" {
			return
		}
		for _, f := range b.dlp.Scan(s).Findings {
			if f.Class.Rank() >= dlp.Secret.Rank() && f.Action != dlp.Monitor {
				seen[f.Scanner] = true
			}
		}
	}
	scan(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Content {
			scan(p.Text)
			scan(p.ToolResult.Content)
			scan(string(p.ToolCall.Input))
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// RuleOutboundMasked is the audit code of a request whose earlier model
// output held secrets that were masked before it was sent again.
const RuleOutboundMasked = "llm_outbound_masked"

// maskModelOutput masks secrets in what the model itself wrote earlier in
// the conversation (assistant text and tool-call inputs). The provider
// wrote them, so sending them back leaks nothing new, but a refused
// proposal that holds one (a key the model typed into a command) would
// otherwise make every later request of the session fail: the model sees
// its own call masked instead. The user's text and tool results are
// not masked here: a secret there still refuses the request. It returns
// the request (a copy where anything changed) and the scanners that
// matched.
func (b *Broker) maskModelOutput(req llm.Request) (llm.Request, []string) {
	seen := map[string]bool{}
	var msgs []chat.Message
	cloned := map[int]bool{}
	for i, m := range req.Messages {
		if m.Role != chat.Assistant {
			continue
		}
		for j, p := range m.Content {
			text, tf := b.maskSecrets(p.Text)
			input, inf := b.maskSecrets(string(p.ToolCall.Input))
			if len(tf)+len(inf) == 0 {
				continue
			}
			if msgs == nil {
				msgs = slices.Clone(req.Messages)
			}
			if !cloned[i] {
				msgs[i].Content, cloned[i] = slices.Clone(m.Content), true
			}
			p.Text = text
			if len(inf) > 0 {
				p.ToolCall.Input = json.RawMessage(`{}`) // a mask that broke the JSON
				if json.Valid([]byte(input)) {
					p.ToolCall.Input = json.RawMessage(input)
				}
			}
			msgs[i].Content[j] = p
			for _, f := range append(tf, inf...) {
				seen[f] = true
			}
		}
	}
	if msgs == nil {
		return req, nil
	}
	req.Messages = msgs
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return req, out
}

// maskSecrets redacts the secrets DLP finds in s (what secretsIn would
// refuse), returning s unchanged and nil when there are none.
func (b *Broker) maskSecrets(s string) (string, []string) {
	if s == "" {
		return s, nil
	}
	var found []string
	for _, f := range b.dlp.Scan(s).Findings {
		if f.Class.Rank() >= dlp.Secret.Rank() && f.Action != dlp.Monitor {
			found = append(found, f.Scanner)
		}
	}
	if len(found) == 0 {
		return s, nil
	}
	out, _ := b.dlp.Redact(s)
	return out, found
}

// noteMasked audits a request sent with the model's earlier output
// masked; an entry that cannot be written refuses the request.
func (b *Broker) noteMasked(ctx context.Context, session, model string, scanners []string) error {
	e := audit.Event{Type: audit.LLMUsage, Session: session, Rule: RuleOutboundMasked,
		Reason: "secrets the model wrote earlier in the conversation were masked before the request was sent again (" +
			strings.Join(scanners, ", ") + ")",
		Detail: audit.Detail{Code: RuleOutboundMasked, Ref: model, Labels: scanners}}
	if _, err := b.cfg.Audit.Append(ctx, e); err != nil {
		return &RefusalError{Rule: RuleAuditError, Reason: "the masking could not be audited; refused", Err: err}
	}
	return nil
}

// call streams the answer, passing each event on, and assembles it.
func (b *Broker) call(ctx context.Context, p llm.Provider, req llm.Request, emit func(llm.Event) error) (*llm.Response, error) {
	s, err := p.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var text strings.Builder
	resp := &llm.Response{}
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			if resp.StopReason == "" {
				return resp, errors.New("the stream ended before its done event")
			}
			resp.Text = text.String()
			return resp, nil
		}
		if err != nil {
			return resp, err
		}
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventToolEnd:
			resp.ToolCalls = append(resp.ToolCalls, ev.ToolCall)
		case llm.EventDone:
			resp.StopReason, resp.Usage, resp.Model, resp.Attempts = ev.StopReason, ev.Usage, ev.Model, ev.Attempts
		}
		if emit != nil {
			if err := emit(ev); err != nil {
				return resp, fmt.Errorf("pass the answer on: %w", err)
			}
		}
	}
}

// record adds the call's usage to the store and audits it (model,
// tokens, cost; never content). The call's error, or a failure to
// record, is what the caller gets.
func (b *Broker) record(ctx context.Context, session string, ref llm.ModelRef, price Price, resp *llm.Response, callErr error, took time.Duration) error {
	var u llm.Usage
	if resp != nil {
		u = resp.Usage
	}
	cost := price.costMicro(u)
	day := store.Day(b.cfg.Now())
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	serr := b.cfg.Usage.AddLLMUsage(ctx, store.LLMUsage{Day: day, Session: session, Model: ref.Name, Calls: 1,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostMicroUSD: cost})
	e := audit.Event{Type: audit.LLMUsage, Session: session, Detail: audit.Detail{Code: CodeLLMCall, Ref: ref.Name,
		Count: u.InputTokens + u.OutputTokens, DurationMS: took.Milliseconds(),
		Message: fmt.Sprintf("model %s: %d input and %d output tokens, $%.6f", ref.Model, u.InputTokens, u.OutputTokens, usd(cost))}}
	if callErr != nil {
		e.Rule, e.Reason = RuleLLMError, "the provider call failed: "+b.mask(callErr.Error())
		var le *llm.Error
		if errors.As(callErr, &le) {
			e.Detail.Code = string(le.Kind)
		}
	}
	_, aerr := b.cfg.Audit.Append(ctx, e)
	switch {
	case callErr != nil:
		return &RefusalError{Rule: RuleLLMError, Reason: "the model call failed: " + b.mask(callErr.Error()), Err: callErr}
	case serr != nil || aerr != nil:
		return &RefusalError{Rule: RuleUsageError, Reason: "the call's usage could not be recorded; its answer is withheld",
			Err: errors.Join(serr, aerr)}
	}
	return nil
}

// refuse audits a refusal and returns it.
func (b *Broker) refuse(ctx context.Context, session string, t audit.EventType, model, rule, reason string, cause error) error {
	e := audit.Event{Type: t, Session: session, Decision: "BLOCK", Rule: rule, Reason: clipReason(reason),
		Detail: audit.Detail{Code: rule, Ref: model}}
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	if _, err := b.cfg.Audit.Append(ctx, e); err != nil {
		cause = errors.Join(cause, err)
	}
	return &RefusalError{Rule: rule, Reason: reason, Err: cause}
}

func (b *Broker) mask(s string) string {
	out, _ := b.dlp.Redact(s)
	return out
}
