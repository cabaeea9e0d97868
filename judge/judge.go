package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of tier 2 (a public contract).
const (
	RuleJudge           = "judge"                   // the model decided; its reason follows
	RuleUnavailable     = "judge_unavailable"       // no answer from the model
	RuleCanaryMissing   = "judge_canary_missing"    // the answer did not carry the canary
	RuleCanaryInPayload = "judge_canary_in_payload" // the action carries the canary itself
	RuleMalformed       = "judge_malformed"         // the answer did not parse
	RuleBudget          = "judge_budget_exhausted"  // the daily budget is spent
	RuleRateLimited     = "judge_rate_limited"      // the session asked too often
	RuleLowConfidence   = "judge_low_confidence"    // supervisor: not sure enough, or secret data
)

// Model is what the judge needs from a language model.
type Model interface {
	// Name identifies the model ("anthropic/claude-…") for audit and doctor.
	Name() string
	// Ask sends one system prompt and one user message and returns the
	// reply text with its token usage.
	Ask(ctx context.Context, system, user string) (Reply, error)
}

// Reply is a model's answer.
type Reply struct {
	Text                      string
	InputTokens, OutputTokens int
}

// Usage keeps the daily budget across restarts (*store.DB has it).
type Usage interface {
	IncrementUsage(ctx context.Context, day, key string, n int64) (int64, error)
	Usage(ctx context.Context, day, key string) (int64, error)
}

// Recorder is the audit chain (*audit.Log).
type Recorder interface {
	Append(ctx context.Context, e audit.Event) (audit.Entry, error)
}

// Input is one escalated action, as data. It is defined in verdict so
// that shield can call a judge without importing this package (and llm).
type Input = verdict.JudgeInput

// Profile is what makes the judge or the supervisor.
type Profile struct {
	Name           string // "judge", "supervisor"
	Prompt         string // system prompt with one %s for the canary
	WantConfidence bool
	MinConfidence  float64       // at or below (or NaN): a human decides
	CacheTTL       time.Duration // default: 60 s for the judge
}

// JudgeProfile is tier 2.
func JudgeProfile() Profile {
	return Profile{Name: "judge", Prompt: judgePrompt, CacheTTL: 60 * time.Second}
}

// SupervisorProfile is the Cortex-style supervisor of sensitive data access.
func SupervisorProfile() Profile {
	return Profile{Name: "supervisor", Prompt: supervisorPrompt, WantConfidence: true, MinConfidence: 0.7,
		CacheTTL: time.Hour}
}

// Config sets up a Judge.
type Config struct {
	Model   Model
	Canary  string // the workspace's canary token (≥ 16 bytes)
	Profile Profile
	// DailyBudget is the number of model calls a day (default 100);
	// Usage keeps the count (nil: in memory).
	DailyBudget int64
	Usage       Usage
	// SessionPerMinute bounds one session's calls (default 20).
	SessionPerMinute int
	Audit            Recorder // nil: nothing recorded
	Now              func() time.Time
	Timeout          time.Duration // per call (default 30 s)
}

// Judge decides escalated actions with a model. Safe for concurrent use.
type Judge struct {
	cfg   Config
	mu    sync.Mutex
	cache map[string]cached
	calls map[string][]time.Time // session → recent call times
}

type cached struct {
	v       verdict.Verdict
	expires time.Time
}

// maxCache bounds the cache; the oldest half is dropped when full.
const maxCache = 4096

// New builds a judge.
func New(cfg Config) (*Judge, error) {
	if cfg.Model == nil {
		return nil, errors.New("judge: no model")
	}
	if len(cfg.Canary) < 16 || strings.ContainsAny(cfg.Canary, " \t\r\n") {
		return nil, errors.New("judge: the canary must be at least 16 characters without spaces")
	}
	if cfg.Profile.Prompt == "" {
		cfg.Profile = JudgeProfile()
	}
	if cfg.DailyBudget == 0 {
		cfg.DailyBudget = 100
	}
	if cfg.SessionPerMinute == 0 {
		cfg.SessionPerMinute = 20
	}
	if cfg.Usage == nil {
		cfg.Usage = newMemUsage()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Judge{cfg: cfg, cache: map[string]cached{}, calls: map[string][]time.Time{}}, nil
}

// ModelName is the model behind the judge.
func (j *Judge) ModelName() string { return j.cfg.Model.Name() }

// budgetKey is the usage counter of a profile.
func (j *Judge) budgetKey() string { return j.cfg.Profile.Name + "_evaluations" }

// Evaluate decides one escalated action. It never returns ALLOW on an
// error: the verdict is then a BLOCK (or, for a spent budget or a rate
// limit, an ESCALATE for a human) with a reason code.
func (j *Judge) Evaluate(ctx context.Context, in Input) verdict.Verdict {
	if strings.Contains(string(in.Payload), j.cfg.Canary) {
		return j.block(ctx, in, RuleCanaryInPayload, "the action carries the evaluator's canary; it is refused unread")
	}
	key := j.cacheKey(in)
	if v, ok := j.cached(key); ok {
		return v
	}
	if v, ok := j.limits(ctx, in); !ok {
		return v
	}
	v := j.ask(ctx, in)
	if v.Rule == RuleJudge || v.Rule == RuleLowConfidence {
		j.store(key, v)
	}
	return v
}

// cacheKey is the scope of a cached verdict: the action and the taint it
// was judged with.
func (j *Judge) cacheKey(in Input) string {
	scope := in.Scope
	if scope == "" {
		scope = in.Hash
	}
	if j.cfg.Profile.Name == "supervisor" {
		return in.Session + "\x00" + scope
	}
	return scope + "\x00" + in.Taint
}

func (j *Judge) cached(key string) (verdict.Verdict, bool) {
	if key == "\x00" || key == "" {
		return verdict.Verdict{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	c, ok := j.cache[key]
	if !ok || !j.cfg.Now().Before(c.expires) {
		return verdict.Verdict{}, false
	}
	return c.v, true
}

func (j *Judge) store(key string, v verdict.Verdict) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.cache) >= maxCache {
		now := j.cfg.Now()
		for k, c := range j.cache {
			if !now.Before(c.expires) || len(j.cache) >= maxCache/2 {
				delete(j.cache, k)
			}
		}
	}
	j.cache[key] = cached{v: v, expires: j.cfg.Now().Add(j.cfg.Profile.CacheTTL)}
}

// limits applies the session rate and the daily budget; ok is false with
// the verdict to return when one is hit.
func (j *Judge) limits(ctx context.Context, in Input) (verdict.Verdict, bool) {
	now := j.cfg.Now()
	j.mu.Lock()
	recent := j.calls[in.Session][:0]
	for _, t := range j.calls[in.Session] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	over := len(recent) >= j.cfg.SessionPerMinute
	if !over {
		recent = append(recent, now)
	}
	j.calls[in.Session] = recent
	j.mu.Unlock()
	if over {
		j.record(ctx, in, audit.RateLimitHit, verdict.Verdict{Decision: verdict.Escalate, Rule: RuleRateLimited}, "")
		return j.human(in, RuleRateLimited, fmt.Sprintf("the session asked the %s more than %d times a minute",
			j.cfg.Profile.Name, j.cfg.SessionPerMinute)), false
	}
	day := now.UTC().Format("2006-01-02")
	n, err := j.cfg.Usage.IncrementUsage(ctx, day, j.budgetKey(), 1)
	if err != nil {
		return j.block(ctx, in, RuleUnavailable, "cannot count the "+j.cfg.Profile.Name+" budget: "+err.Error()), false
	}
	if n > j.cfg.DailyBudget {
		v := j.human(in, RuleBudget, fmt.Sprintf("the daily %s budget (%d) is spent", j.cfg.Profile.Name, j.cfg.DailyBudget))
		j.record(ctx, in, audit.BudgetExhausted, v, "")
		return v, false
	}
	return verdict.Verdict{}, true
}

// ask calls the model and turns its answer into a verdict.
func (j *Judge) ask(ctx context.Context, in Input) verdict.Verdict {
	user, err := userMessage(in)
	if err != nil {
		return j.block(ctx, in, RuleUnavailable, err.Error())
	}
	cctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	reply, err := j.cfg.Model.Ask(cctx, fmt.Sprintf(j.cfg.Profile.Prompt, j.cfg.Canary), user)
	if err != nil {
		return j.block(ctx, in, RuleUnavailable, "the "+j.cfg.Profile.Name+" did not answer: "+err.Error())
	}
	a, err := parseAnswer(reply.Text, j.cfg.Canary, j.cfg.Profile.WantConfidence)
	switch {
	case errors.Is(err, errCanary):
		v := j.block(ctx, in, RuleCanaryMissing, "the "+j.cfg.Profile.Name+"'s answer lacks the canary; it may have been steered by the action")
		j.record(ctx, in, audit.CanaryMissing, v, "")
		return v
	case err != nil:
		return j.block(ctx, in, RuleMalformed, "the "+j.cfg.Profile.Name+"'s answer is malformed")
	}
	j.record(ctx, in, audit.CanaryVerified, verdict.Verdict{}, fmt.Sprintf("%d/%d tokens", reply.InputTokens, reply.OutputTokens))
	v := verdict.Verdict{Decision: a.decision, Stage: verdict.StageJudge, Tier: 2, Rule: RuleJudge,
		Reason: j.cfg.Profile.Name + " (" + j.cfg.Model.Name() + "): " + a.reason, Hash: in.Hash}
	if j.cfg.Profile.WantConfidence && v.Decision != verdict.Block && (!(a.confidence > j.cfg.Profile.MinConfidence) || in.Secret) {
		why := fmt.Sprintf("confidence %.2f", a.confidence)
		if in.Secret {
			why = "the data is secret"
		}
		v = j.human(in, RuleLowConfidence, "a human decides ("+why+"): "+a.reason)
	}
	return v
}

// block is a BLOCK at the judge stage.
func (j *Judge) block(ctx context.Context, in Input, rule, reason string) verdict.Verdict {
	_ = ctx
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageJudge, Tier: 2, Rule: rule, Reason: reason, Hash: in.Hash}
}

// human hands the action to tier 3.
func (j *Judge) human(in Input, rule, reason string) verdict.Verdict {
	return verdict.Verdict{Decision: verdict.Escalate, Stage: verdict.StageJudge, Tier: 3, Rule: rule, Reason: reason, Hash: in.Hash}
}

// record appends an audit event when the judge has a chain; a failure to
// record is returned to nobody: the verdict itself is audited by the gate.
func (j *Judge) record(ctx context.Context, in Input, t audit.EventType, v verdict.Verdict, msg string) {
	if j.cfg.Audit == nil {
		return
	}
	e := audit.FromVerdict(t, in.Session, in.Type, v)
	if v.Rule == "" {
		e.Decision, e.Stage = "", "" // an event about the check, not a decision
	}
	e.ActionHash = in.Hash
	e.Detail = audit.Detail{Code: j.cfg.Profile.Name, Ref: safeRef(j.cfg.Model.Name()), Message: msg}
	_, _ = j.cfg.Audit.Append(context.WithoutCancel(ctx), e)
}

// safeRef keeps a model name to the audit chain's identifier characters.
func safeRef(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._:/@+=-", r):
			return r
		}
		return '-'
	}, s)
}

// memUsage is a Usage kept in memory.
type memUsage struct {
	mu sync.Mutex
	n  map[string]int64
}

func newMemUsage() *memUsage { return &memUsage{n: map[string]int64{}} }

func (m *memUsage) IncrementUsage(_ context.Context, day, key string, n int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n[day+"/"+key] += n
	return m.n[day+"/"+key], nil
}

func (m *memUsage) Usage(_ context.Context, day, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[day+"/"+key], nil
}
