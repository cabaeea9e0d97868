package heuristic

import (
	"slices"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// vandalise changes everything a caller could change in what Rules
// returned: each rule's decision, types, matcher and examples, and the
// elements of the slices it shares nothing with.
func vandalise(rs []Rule) {
	for i := range rs {
		r := &rs[i]
		for j := range r.Types {
			r.Types[j] = action.Type("vandalised")
		}
		for j := range r.Positive {
			r.Positive[j] = Example{}
		}
		r.Types = nil
		r.Decision = verdict.Allow
		r.Match = func(*Input) (string, bool) { return "", false }
		r.ID = "vandalised"
	}
	rs[0], rs[len(rs)-1] = rs[len(rs)-1], rs[0]
}

// TestRulesCopyCannotChangeDecisions evaluates each rule's positive
// examples, vandalises what Rules returned, and evaluates them again:
// every finding must be the same, and a second Rules call must return
// the table as it was.
func TestRulesCopyCannotChangeDecisions(t *testing.T) {
	before := Rules()
	type probe struct {
		in   *Input
		want Finding
	}
	var probes []probe
	for _, r := range before {
		for _, e := range r.Positive {
			in := prepare(t, e)
			f, ok := Evaluate(in)
			if !ok {
				t.Fatalf("%s: positive example %s fires nothing", r.ID, e.Payload)
			}
			probes = append(probes, probe{in, f})
		}
	}
	vandalise(before)
	for _, p := range probes {
		got, ok := Evaluate(p.in)
		if !ok || got != p.want {
			t.Errorf("%s after editing Rules(): got %+v (fired %v), want %+v", p.in.Action.Type, got, ok, p.want)
		}
	}
	after, fresh := Rules(), rulesTable()
	if len(after) != len(fresh) {
		t.Fatalf("Rules() after the edit: got %d rules, want %d", len(after), len(fresh))
	}
	for i := range fresh {
		if !sameRule(&after[i], &fresh[i]) {
			t.Errorf("Rules()[%d] after the edit: got %s %v %v, want %s %v %v", i,
				after[i].ID, after[i].Decision, after[i].Types, fresh[i].ID, fresh[i].Decision, fresh[i].Types)
		}
	}
}

func sameRule(a, b *Rule) bool {
	return a.ID == b.ID && a.Decision == b.Decision && a.Severity == b.Severity &&
		a.Category == b.Category && a.Description == b.Description && slices.Equal(a.Types, b.Types) &&
		slices.Equal(a.Positive, b.Positive) && slices.Equal(a.Negative, b.Negative) && a.Match != nil
}

// TestIndexAgreesWithTable rebuilds, from a freshly built table, the list
// Evaluate must walk for each action type (BLOCK rules, then ESCALATE
// rules, each in table order) and compares it with the index in use; each
// indexed rule must be the table's own entry.
func TestIndexAgreesWithTable(t *testing.T) {
	vandalise(Rules())
	fresh, shared := rulesTable(), table()
	types := append(action.Types(), action.Type("no_such_type"))
	for _, ty := range types {
		var want []string
		for _, d := range []verdict.Decision{verdict.Block, verdict.Escalate} {
			for _, r := range fresh {
				if r.Decision == d && slices.Contains(r.Types, ty) {
					want = append(want, r.ID)
				}
			}
		}
		var got []string
		for _, r := range index().byType[ty] {
			got = append(got, r.ID)
			if i := slices.IndexFunc(shared, func(s Rule) bool { return s.ID == r.ID }); i < 0 || &shared[i] != r {
				t.Errorf("%s: indexed rule %s is not the table's entry", ty, r.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: index walks %v, want %v", ty, got, want)
		}
	}
	var embedded []string
	for _, r := range index().embeddedShell {
		embedded = append(embedded, r.ID)
	}
	var want []string
	for _, r := range fresh {
		if r.Decision == verdict.Block && slices.Contains(r.Types, action.ExecuteCommand) {
			want = append(want, r.ID)
		}
	}
	if !slices.Equal(embedded, want) {
		t.Errorf("embedded shell rules: got %v, want %v", embedded, want)
	}
}
