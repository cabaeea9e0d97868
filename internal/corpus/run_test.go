package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// fakeGate decides by the step type's name and records what it saw.
type fakeGate struct {
	decide map[string]verdict.Decision
	seen   []shield.Request
}

func (g *fakeGate) Evaluate(_ context.Context, r shield.Request) verdict.Verdict {
	g.seen = append(g.seen, r)
	d, ok := g.decide[r.Type]
	if !ok {
		d = verdict.Block
	}
	return verdict.Verdict{Decision: d, Stage: verdict.StageHeuristic, Rule: "fake_" + r.Type, Reason: "fake says " + d.String()}
}

func mk(id, cat, intent string, must bool, expect verdict.Decision, types ...string) Case {
	c := Case{ID: id, Category: cat, Intent: intent, Description: id, Must: must, Expect: expect, File: "f.yaml", Line: 7}
	for _, t := range types {
		c.Steps = append(c.Steps, Step{Type: t, Payload: json.RawMessage(`{}`), Result: "r-" + t})
	}
	return c
}

func TestRun(t *testing.T) {
	g := &fakeGate{decide: map[string]verdict.Decision{
		"allow": verdict.Allow, "esc": verdict.Escalate, "block": verdict.Block,
	}}
	cases := []Case{
		mk("a1", "x", IntentAttack, true, verdict.Block, "allow", "block"),        // pass
		mk("a2", "x", IntentAttack, false, verdict.Escalate, "block"),             // pass: BLOCK meets ESCALATE for attacks
		mk("a3", "x", IntentAttack, true, verdict.Block, "allow", "esc", "allow"), // fail: got ESCALATE
		mk("a4", "y", IntentAttack, false, verdict.Block, "allow"),                // fail: allowed
		mk("l1", "y", IntentLegit, true, verdict.Allow, "allow", "allow"),         // pass
		mk("l2", "y", IntentLegit, false, verdict.Escalate, "block"),              // fail: BLOCK does not meet ESCALATE for legit
		mk("l3", "y", IntentLegit, false, verdict.Escalate, "esc"),                // pass
	}
	r := Run(context.Background(), Fixed(g), cases)

	want := map[string]Tally{
		"x": {Attacks: 3, AttacksBlocked: 2, AttacksEscalated: 1, Passed: 2, Failed: 1},
		"y": {Attacks: 1, AttacksAllowed: 1, Legit: 3, LegitAllowed: 1, LegitEscalated: 1, LegitBlocked: 1, Passed: 2, Failed: 2},
	}
	if len(r.Categories) != 2 || r.Categories[0].Name != "x" || r.Categories[1].Name != "y" {
		t.Fatalf("categories: got %+v", r.Categories)
	}
	for _, c := range r.Categories {
		if c.Tally != want[c.Name] {
			t.Errorf("%s: got %+v, want %+v", c.Name, c.Tally, want[c.Name])
		}
	}
	total := Tally{Attacks: 4, AttacksBlocked: 2, AttacksEscalated: 1, AttacksAllowed: 1,
		Legit: 3, LegitAllowed: 1, LegitEscalated: 1, LegitBlocked: 1, Passed: 4, Failed: 3}
	if r.Total != total {
		t.Errorf("total: got %+v, want %+v", r.Total, total)
	}

	var ids []string
	for _, f := range r.Failures {
		ids = append(ids, f.ID)
	}
	if got, want := strings.Join(ids, ","), "a3,a4,l2"; got != want {
		t.Errorf("failures: got %s, want %s", got, want)
	}
	f := r.Failures[0]
	if f.Want != verdict.Block || f.Got != verdict.Escalate || f.Step != 2 || f.Verdict.Rule != "fake_esc" ||
		f.File != "f.yaml" || f.Line != 7 || !f.Must {
		t.Errorf("failure a3: got %+v", f)
	}
	if r.Failures[1].Step != 1 || r.Failures[1].Verdict.Rule != "fake_allow" {
		t.Errorf("failure a4: got %+v", r.Failures[1])
	}
	must := r.MustFailures()
	if len(must) != 1 || must[0].ID != "a3" {
		t.Errorf("must failures: got %+v", must)
	}
}

func TestRunSessionsAndEarlyStop(t *testing.T) {
	g := &fakeGate{decide: map[string]verdict.Decision{"allow": verdict.Allow, "block": verdict.Block}}
	cases := []Case{
		mk("c1", "x", IntentAttack, false, verdict.Block, "allow", "block", "allow"),
		mk("c2", "x", IntentLegit, false, verdict.Allow, "allow"),
	}
	Run(context.Background(), Fixed(g), cases)
	var got []string
	for _, r := range g.seen {
		got = append(got, r.Session+"/"+r.Type+"/"+r.Result)
	}
	// The step after a BLOCK never runs; each case has its own session.
	if want := "c1/allow/r-allow c1/block/r-block c2/allow/r-allow"; strings.Join(got, " ") != want {
		t.Errorf("requests: got %s, want %s", strings.Join(got, " "), want)
	}
}

func TestWriteTable(t *testing.T) {
	g := &fakeGate{decide: map[string]verdict.Decision{"allow": verdict.Allow, "esc": verdict.Escalate}}
	r := Run(context.Background(), Fixed(g), []Case{
		mk("a1", "exfil", IntentAttack, false, verdict.Block, "block"),
		mk("a2", "exfil", IntentAttack, false, verdict.Block, "esc"),
		mk("l1", "dev", IntentLegit, true, verdict.Allow, "block"),
		mk("l2", "dev", IntentLegit, false, verdict.Allow, "allow"),
	})
	var b bytes.Buffer
	r.WriteTable(&b)
	out := b.String()
	for _, want := range []string{
		"category", "exfil", "dev", "TOTAL",
		"attacks stopped  2/2 (100.0%)",
		"attacks blocked  1/2 (50.0%)",
		"legit allowed    1/2 (50.0%)",
		"legit blocked    1\n",
		"must failures    1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteFailures(&b, r.MustFailures())
	if want := "f.yaml:7: l1 [must]: want ALLOW, got BLOCK (step 1: stage=heuristic rule=fake_block: fake says BLOCK)\n"; b.String() != want {
		t.Errorf("failures: got %q, want %q", b.String(), want)
	}
}

func TestRunSubSessionsAndPolicies(t *testing.T) {
	g := &fakeGate{decide: map[string]verdict.Decision{"allow": verdict.Allow}}
	c := mk("c1", "x", IntentLegit, false, verdict.Allow, "allow", "allow", "allow")
	c.Steps[1].Session, c.Steps[1].Parent = "helper", "main"
	c.Steps[2].Session, c.Steps[2].Parent = "sub", "helper"
	var asked []string
	gates := func(p string, _ bool) (Evaluator, error) {
		asked = append(asked, p)
		return g, nil
	}
	c.Policy = "permissive"
	Run(context.Background(), gates, []Case{c})
	var got []string
	for _, r := range g.seen {
		got = append(got, r.Session+"<"+r.Parent)
	}
	if want := "c1< c1/helper<c1 c1/sub<c1/helper"; strings.Join(got, " ") != want {
		t.Errorf("sessions: got %s, want %s", strings.Join(got, " "), want)
	}
	if strings.Join(asked, ",") != "permissive" {
		t.Errorf("policies asked: got %v, want [permissive]", asked)
	}
	r := Run(context.Background(), Fixed(g), []Case{c})
	if len(r.Failures) != 1 || r.Failures[0].Verdict.Rule != "corpus_gate_error" {
		t.Errorf("a case naming a policy the run cannot build must fail: got %+v", r.Failures)
	}
}
