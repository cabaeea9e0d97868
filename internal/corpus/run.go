package corpus

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Evaluator decides one proposed action. *shield.Gate implements it.
type Evaluator interface {
	Evaluate(ctx context.Context, r shield.Request) verdict.Verdict
}

// Gates returns the evaluator for a policy preset ("" is the run's
// default) and an executor that hides the workspace's .parallax or not
// (visible: Case.Visible).
type Gates func(policy string, visible bool) (Evaluator, error)

// ShieldGates builds one gate per policy and executor setting from cfg
// (cfg.Policy is the default) as cases ask for them, and gives each case
// a fresh copy: no case sees the taint or file labels another left
// behind. A case is judged as the own agent's engine judges it, with
// .parallax hidden by the executor (shield.Config.InternalsHidden), unless
// it says "internals: visible" (the hook, the MCP proxy, the HTTP API).
func ShieldGates(cfg shield.Config) Gates {
	var mu sync.Mutex
	type key struct {
		policy  string
		visible bool
	}
	built := map[key]*shield.Gate{}
	return func(p string, visible bool) (Evaluator, error) {
		if p == "" {
			p = cfg.Policy
		}
		mu.Lock()
		defer mu.Unlock()
		if g, ok := built[key{p, visible}]; ok {
			return g.Fresh(), nil
		}
		c := cfg
		c.Policy, c.InternalsHidden = p, !visible
		g, err := shield.New(c)
		if err != nil {
			return nil, fmt.Errorf("build gate for policy %q: %w", p, err)
		}
		built[key{p, visible}] = g
		return g.Fresh(), nil
	}
}

// Fixed judges every case with ev; a case that names a policy or asks
// for visible internals fails.
func Fixed(ev Evaluator) Gates {
	return func(p string, visible bool) (Evaluator, error) {
		if p != "" {
			return nil, fmt.Errorf("this run has one gate; case policy %q is not available", p)
		}
		if visible {
			return nil, fmt.Errorf("this run has one gate; visible internals are not available")
		}
		return ev, nil
	}
}

// Tally counts outcomes by intent.
type Tally struct {
	Attacks          int `json:"attacks"`
	AttacksBlocked   int `json:"attacks_blocked"`
	AttacksEscalated int `json:"attacks_escalated"`
	AttacksAllowed   int `json:"attacks_allowed"`
	Legit            int `json:"legit"`
	LegitAllowed     int `json:"legit_allowed"`
	LegitEscalated   int `json:"legit_escalated"`
	LegitBlocked     int `json:"legit_blocked"`
	Passed           int `json:"passed"`
	Failed           int `json:"failed"`
}

func (t *Tally) add(intent string, got verdict.Decision, pass bool) {
	if pass {
		t.Passed++
	} else {
		t.Failed++
	}
	if intent == IntentAttack {
		t.Attacks++
		switch got {
		case verdict.Block:
			t.AttacksBlocked++
		case verdict.Escalate:
			t.AttacksEscalated++
		case verdict.Allow:
			t.AttacksAllowed++
		}
		return
	}
	t.Legit++
	switch got {
	case verdict.Allow:
		t.LegitAllowed++
	case verdict.Escalate:
		t.LegitEscalated++
	case verdict.Block:
		t.LegitBlocked++
	}
}

// CategoryReport is the tally of one category.
type CategoryReport struct {
	Name string `json:"name"`
	Tally
}

// Failure is a case whose outcome missed its expectation.
type Failure struct {
	ID          string           `json:"id"`
	Category    string           `json:"category"`
	Intent      string           `json:"intent"`
	Description string           `json:"description"`
	Must        bool             `json:"must"`
	File        string           `json:"file"`
	Line        int              `json:"line"`
	Want        verdict.Decision `json:"want"`
	Got         verdict.Decision `json:"got"`
	// Step is the 1-based step whose verdict decided the outcome.
	Step    int             `json:"step"`
	Verdict verdict.Verdict `json:"verdict"`
}

// Report is the result of a corpus run.
type Report struct {
	Categories []CategoryReport `json:"categories"`
	Total      Tally            `json:"total"`
	Failures   []Failure        `json:"failures"`
}

// Outcome is what a case came to.
type Outcome struct {
	Decision verdict.Decision
	Step     int             // 1-based step that decided it
	Verdict  verdict.Verdict // that step's verdict
}

// Passes reports whether got meets the case's expectation. An attack that
// expects ESCALATE also passes when BLOCKed.
func (c *Case) Passes(got verdict.Decision) bool {
	if got == c.Expect {
		return true
	}
	return c.Intent == IntentAttack && c.Expect == verdict.Escalate && got == verdict.Block
}

// RunCase evaluates the steps of one case in its own session (the case id;
// a step's sub-agent session is "ID/NAME"). The outcome is the most severe
// decision; the first step reaching it decides. A BLOCKed step ends the
// case: a blocked action never runs.
func RunCase(ctx context.Context, ev Evaluator, c *Case) Outcome {
	out := Outcome{Decision: verdict.Allow}
	for i, s := range c.Steps {
		r := shield.Request{Session: c.ID, Type: s.Type, Payload: s.Payload, Result: s.Result, Env: c.Env}
		if s.Session != "" {
			r.Session = c.ID + "/" + s.Session
		}
		switch s.Parent {
		case "":
		case "main":
			r.Parent = c.ID
		default:
			r.Parent = c.ID + "/" + s.Parent
		}
		v := ev.Evaluate(ctx, r)
		if i == 0 || v.Decision.Severity() > out.Decision.Severity() {
			out = Outcome{Decision: v.Decision, Step: i + 1, Verdict: v}
		}
		if v.Decision == verdict.Block {
			break
		}
	}
	return out
}

// Run evaluates every case, each under its policy, and tallies the
// outcomes per category. A case whose gate cannot be built is a failure
// with a BLOCK outcome and the error as reason.
func Run(ctx context.Context, gates Gates, cases []Case) *Report {
	r := &Report{Categories: []CategoryReport{}, Failures: []Failure{}}
	byCat := map[string]*CategoryReport{}
	for i := range cases {
		c := &cases[i]
		var o Outcome
		if ev, err := gates(c.Policy, c.Visible); err != nil {
			o = Outcome{Decision: verdict.Block, Step: 1, Verdict: verdict.Verdict{Decision: verdict.Block,
				Rule: "corpus_gate_error", Reason: err.Error()}}
		} else {
			o = RunCase(ctx, ev, c)
		}
		pass := c.Passes(o.Decision)
		cr := byCat[c.Category]
		if cr == nil {
			cr = &CategoryReport{Name: c.Category}
			byCat[c.Category] = cr
		}
		cr.add(c.Intent, o.Decision, pass)
		r.Total.add(c.Intent, o.Decision, pass)
		if !pass {
			r.Failures = append(r.Failures, Failure{
				ID: c.ID, Category: c.Category, Intent: c.Intent, Description: c.Description,
				Must: c.Must, File: c.File, Line: c.Line, Want: c.Expect, Got: o.Decision,
				Step: o.Step, Verdict: o.Verdict,
			})
		}
	}
	for _, cr := range byCat {
		r.Categories = append(r.Categories, *cr)
	}
	sort.Slice(r.Categories, func(i, j int) bool { return r.Categories[i].Name < r.Categories[j].Name })
	return r
}

// MustFailures lists the failures of must-pass cases.
func (r *Report) MustFailures() []Failure {
	var out []Failure
	for _, f := range r.Failures {
		if f.Must {
			out = append(out, f)
		}
	}
	return out
}
