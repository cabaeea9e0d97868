package engine

import (
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/shield"
)

// Options are what Open adds to a workspace's own configuration.
type Options struct {
	// Home is what ~ means (absolute).
	Home string
	// Approver is tier 3; nil: what still escalates ends as BLOCK.
	Approver shield.Approver
	// Executors run the allowed actions, by type.
	Executors map[action.Type]Executor
	// InternalsHidden: every command the pipeline runs is sandboxed so
	// that the workspace's .parallax is hidden (shield.Config.
	// InternalsHidden). Only the own agent's runtime with its per-command
	// sandbox sets it.
	InternalsHidden bool
	// Tools, when set, adds the files and shell executors
	// (ToolExecutors) with the gate's own guard judging their directory
	// walks; Executors replace or add to them.
	Tools *ToolsConfig
	// Redact masks secrets in results before the agent reads them.
	Redact bool
	// Chronicle bounds the snapshots.
	Chronicle chronicle.Options
	Now       func() time.Time
	Logger    *slog.Logger
}

// Open builds the pipeline of an open workspace: its audit chain is
// verified whole first (a broken chain refuses to start), then its gate
// (policy, IFC store, judge, the given approver) and Chronicle are
// wired in. The gate is returned for the callers that also evaluate
// without executing.
func Open(ws *workspace.Workspace, opts Options) (*Pipeline, *shield.Gate, error) {
	if _, err := workspace.VerifyChain(ws.Root); err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	}
	gc := ws.GateConfig(opts.Home)
	gc.Approver = opts.Approver
	gc.InternalsHidden = opts.InternalsHidden
	gc.WalksJudged = opts.Tools != nil // the files executor asks the guard about every entry
	if opts.Now != nil {
		gc.Now = opts.Now
	}
	g, err := shield.New(gc)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: gate: %w", err)
	}
	executors := opts.Executors
	if opts.Tools != nil {
		tc := *opts.Tools
		tc.Guard = g.Guard()
		executors = ToolExecutors(tc)
		maps.Copy(executors, opts.Executors)
	}
	p, err := New(Config{Workspace: ws.Root, Home: opts.Home, Gate: g, Audit: ws.Audit,
		Snapshots: &Chronicle{WS: ws, Opts: opts.Chronicle}, Executors: executors, Redact: opts.Redact,
		Now: opts.Now, Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	return p, g, nil
}

// OpenBroker builds the LLM broker of an open workspace: its model pool
// (llm: in config.yaml; keys from the environment through getenv, nil
// for os.Getenv), its budgets and prices (agent:), its database and
// audit chain.
func OpenBroker(ws *workspace.Workspace, getenv func(string) string, now func() time.Time) (*Broker, error) {
	if ws.Config.LLM == nil {
		return nil, fmt.Errorf("engine: %s configures no llm models", workspace.ConfigPath(ws.Root))
	}
	pool, err := llm.NewPool(*ws.Config.LLM, llm.Options{Getenv: getenv})
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	daily, session := ws.Config.Agent.Budgets()
	var prices map[string]Price
	if ws.Config.Agent != nil && len(ws.Config.Agent.Prices) > 0 {
		prices = make(map[string]Price, len(ws.Config.Agent.Prices))
		for name, p := range ws.Config.Agent.Prices {
			prices[name] = Price{InputPerMTok: p.InputPerMTok, OutputPerMTok: p.OutputPerMTok}
		}
	}
	return NewBroker(BrokerConfig{Models: pool, Usage: ws.DB, Audit: ws.Audit, DailyBudgetUSD: daily,
		SessionBudgetUSD: session, Prices: prices, ScanOutbound: ws.Config.Agent.ScanOutbound(), Now: now})
}
