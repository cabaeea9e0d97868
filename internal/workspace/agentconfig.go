package workspace

import (
	"fmt"
	"math"
	"sort"
)

// DefaultDailyBudgetUSD is the agent's LLM budget per day when
// agent.daily_budget_usd is absent.
const DefaultDailyBudgetUSD = 5.0

// AgentConfig is the agent: block of config.yaml.
type AgentConfig struct {
	// DailyBudgetUSD bounds what the agent's LLM calls cost per UTC day,
	// all sessions together (absent: DefaultDailyBudgetUSD).
	DailyBudgetUSD *float64 `yaml:"daily_budget_usd"`
	// SessionBudgetUSD bounds one session per day (absent: only the
	// daily budget).
	SessionBudgetUSD *float64 `yaml:"session_budget_usd"`
	// OutboundDLP refuses LLM requests that carry secrets (absent: on).
	OutboundDLP *bool `yaml:"outbound_dlp"`
	// Prices are what models cost, by the model name a pool entry calls
	// (its `model`), in USD per million tokens; they override the
	// engine's built-in table.
	Prices map[string]LLMPrice `yaml:"prices"`
}

// LLMPrice is a model's price in USD per million tokens.
type LLMPrice struct {
	InputPerMTok  float64 `yaml:"input_per_mtok"`
	OutputPerMTok float64 `yaml:"output_per_mtok"`
}

// Budgets returns the daily and per-session budgets in USD (0: none
// for the session).
func (a *AgentConfig) Budgets() (daily, session float64) {
	daily = DefaultDailyBudgetUSD
	if a == nil {
		return daily, 0
	}
	if a.DailyBudgetUSD != nil {
		daily = *a.DailyBudgetUSD
	}
	if a.SessionBudgetUSD != nil {
		session = *a.SessionBudgetUSD
	}
	return daily, session
}

// ScanOutbound reports whether LLM requests are scanned for secrets.
func (a *AgentConfig) ScanOutbound() bool {
	return a == nil || a.OutboundDLP == nil || *a.OutboundDLP
}

// validate checks the block; its errors start with the key's name under
// agent.
func (a *AgentConfig) validate() error {
	if a == nil {
		return nil
	}
	if b := a.DailyBudgetUSD; b != nil && !(*b > 0 && *b < math.Inf(1)) {
		return fmt.Errorf("daily_budget_usd must be a positive number of dollars")
	}
	if b := a.SessionBudgetUSD; b != nil && !(*b > 0 && *b < math.Inf(1)) {
		return fmt.Errorf("session_budget_usd must be a positive number of dollars")
	}
	names := make([]string, 0, len(a.Prices))
	for n := range a.Prices {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := a.Prices[n]
		if !finiteNonNeg(p.InputPerMTok) || !finiteNonNeg(p.OutputPerMTok) {
			return fmt.Errorf("prices.%s: prices must be non-negative numbers", n)
		}
	}
	return nil
}

func finiteNonNeg(f float64) bool { return f >= 0 && f < math.Inf(1) }
