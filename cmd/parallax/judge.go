package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/corpus"
	"github.com/parallax/parallax/judge"
	"github.com/parallax/parallax/llm"
	"github.com/parallax/parallax/verdict"
)

func newJudgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judge",
		Short: "Tier 2: measure the LLM judge on the corpus",
	}
	cmd.AddCommand(newJudgeEvalCmd())
	return cmd
}

func newJudgeEvalCmd() *cobra.Command {
	var workspace, home, policy, models, model string
	var budget int64
	var asJSON, failures bool
	cmd := &cobra.Command{
		Use:   "eval PATH... --models FILE [--model NAME]",
		Short: "Run the escalated part of a corpus through a configured judge",
		Long: `Runs the corpus through the deterministic gate, keeps the cases it
ESCALATEs, and runs those again with the judge as tier 2. Prints, per
category, how often the judge blocked attacks and allowed legitimate work,
then the model, its latency and the tokens it used.

--models is a model pool file (the llm configuration: models[] with
provider, model, api_key_env, base_url; roles{} with shield). --model picks
a pool entry by name; without it the shield role is used. API keys come
from the environment variables the file names, never from the file.

This calls a real model for every escalated case: it is for measuring, not
for CI. Nothing is executed.`,
		Example: `  parallax judge eval testdata/corpus --models models.yaml
  parallax judge eval testdata/corpus/flows --models models.yaml --model local-qwen`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cases, err := corpus.Load(args...)
			if err != nil {
				return err
			}
			m, err := judgeModel(models, model)
			if err != nil {
				return err
			}
			ws, err := dirOrCwd(workspace) // a measurement: the current directory, never a workspace above
			if err != nil {
				return err
			}
			cfg, err := gateConfig(cmd.ErrOrStderr(), ws, home, policy)
			if err != nil {
				return err
			}
			escalated, err := escalatedCases(cmd.Context(), corpus.ShieldGates(cfg), cases)
			if err != nil {
				return err
			}
			rec := &recordingModel{Model: m}
			j, err := judge.New(judge.Config{Model: rec, Canary: newCanary(), DailyBudget: budget,
				SessionPerMinute: 1 << 20})
			if err != nil {
				return err
			}
			cfg.Judge = j
			report := corpus.Run(cmd.Context(), corpus.ShieldGates(cfg), escalated)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "judge: %s — %d of %d cases escalated by the deterministic tiers\n\n", m.Name(), len(escalated), len(cases))
			if err := writeEvalReport(out, report, asJSON, failures); err != nil {
				return err
			}
			if !asJSON {
				rec.write(out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&models, "models", "", "model pool file (llm configuration)")
	cmd.Flags().StringVar(&model, "model", "", "pool entry to judge with (default: the shield role)")
	cmd.Flags().Int64Var(&budget, "budget", 10000, "most model calls for the run")
	cmd.Flags().StringVar(&workspace, "workspace", "/home/dev/project", "workspace root the cases are written for")
	cmd.Flags().StringVar(&home, "home", "/home/dev", "what ~ means")
	cmd.Flags().StringVar(&policy, "policy", "default", "policy preset or file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the report as JSON")
	cmd.Flags().BoolVar(&failures, "failures", false, "list every failing case")
	_ = cmd.MarkFlagRequired("models")
	return cmd
}

// judgeModel builds the model a run judges with.
func judgeModel(file, name string) (judge.Model, error) {
	cfg, err := llm.LoadConfig(file)
	if err != nil {
		return nil, err
	}
	pool, err := llm.NewPool(cfg, llm.Options{})
	if err != nil {
		return nil, err
	}
	var p llm.Provider
	var ref llm.ModelRef
	if name != "" {
		p, ref, err = pool.Model(name)
	} else {
		p, ref, err = pool.ForRole(llm.RoleShield)
	}
	if err != nil {
		return nil, err
	}
	return judge.FromLLM(p, ref), nil
}

// escalatedCases are the cases the deterministic tiers leave to a judge.
func escalatedCases(ctx context.Context, gates corpus.Gates, cases []corpus.Case) ([]corpus.Case, error) {
	var out []corpus.Case
	for i := range cases {
		ev, err := gates(cases[i].Policy, cases[i].Visible)
		if err != nil {
			return nil, err
		}
		if o := corpus.RunCase(ctx, ev, &cases[i]); o.Decision == verdict.Escalate {
			out = append(out, cases[i])
		}
	}
	return out, nil
}

// newCanary is a random canary for one run.
func newCanary() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported systems
	return "canary-" + hex.EncodeToString(b)
}

// recordingModel measures the calls it passes on.
type recordingModel struct {
	judge.Model
	mu        sync.Mutex
	latencies []time.Duration
	in, out   int
	errors    int
}

func (r *recordingModel) Ask(ctx context.Context, system, user string) (judge.Reply, error) {
	start := time.Now()
	rep, err := r.Model.Ask(ctx, system, user)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies = append(r.latencies, time.Since(start))
	r.in += rep.InputTokens
	r.out += rep.OutputTokens
	if err != nil {
		r.errors++
	}
	return rep, err
}

func (r *recordingModel) write(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.latencies)
	fmt.Fprintf(w, "\nmodel %s: %d calls, %d errors", r.Model.Name(), n, r.errors)
	if n == 0 {
		fmt.Fprintln(w)
		return
	}
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })
	pct := func(p float64) time.Duration { return r.latencies[int(p*float64(n-1))] }
	fmt.Fprintf(w, "; latency p50 %v, p95 %v; tokens in %d (%.0f/call), out %d (%.0f/call)\n",
		pct(0.5).Round(time.Millisecond), pct(0.95).Round(time.Millisecond), r.in, float64(r.in)/float64(n),
		r.out, float64(r.out)/float64(n))
}
