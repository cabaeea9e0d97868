package heuristic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

const (
	testHome      = "/home/dev"
	testWorkspace = "/home/dev/project"
)

// prepare runs an example the way the gate does: strict decode,
// normalisation, shell analysis for commands.
func prepare(t testing.TB, e Example) *Input {
	t.Helper()
	a, err := action.Decode(string(e.Type), json.RawMessage(e.Payload))
	if err != nil {
		t.Fatalf("decode %s %s: %v", e.Type, e.Payload, err)
	}
	if err := action.Normalize(a, action.Env{Home: testHome}); err != nil {
		t.Fatalf("normalize %s %s: %v", e.Type, e.Payload, err)
	}
	in := &Input{Action: a, Workspace: testWorkspace, Home: testHome}
	if cmd := shellCommand(a); cmd != "" {
		in.Effects = shell.Analyze(cmd, shell.Options{Cwd: testWorkspace, Home: testHome})
	}
	return in
}

func shellCommand(a *action.Action) string {
	switch p := a.Payload.(type) {
	case *action.ExecuteCommandPayload:
		return p.Command
	case *action.CreateSchedulePayload:
		return p.Command
	}
	return ""
}

// usesShell reports whether an example's verdict depends on the analyser.
func usesShell(e Example) bool {
	return e.Type == action.ExecuteCommand || strings.Contains(e.Payload, `"command"`) ||
		strings.Contains(e.Payload, "`") || strings.Contains(e.Payload, "run:")
}

func fired(fs []Finding, id string) (string, bool) {
	for _, f := range fs {
		if f.ID == id {
			return f.Detail, true
		}
	}
	return "", false
}

func describe(in *Input) string {
	var b strings.Builder
	for _, f := range EvaluateAll(in) {
		fmt.Fprintf(&b, " [%s: %s]", f.ID, f.Detail)
	}
	if in.Effects != nil {
		fmt.Fprintf(&b, " effects=%+v", *in.Effects)
	}
	return b.String()
}

func checkExamples(t *testing.T, typedOnly bool) {
	for i := range Rules() {
		r := &Rules()[i]
		t.Run(r.ID, func(t *testing.T) {
			for _, set := range []struct {
				name string
				exs  []Example
				want bool
			}{{"positive", r.Positive, true}, {"negative", r.Negative, false}} {
				for _, e := range set.exs {
					if typedOnly && usesShell(e) {
						continue
					}
					in := prepare(t, e)
					_, got := fired(EvaluateAll(in), r.ID)
					if got != set.want {
						t.Errorf("%s %s %s: fired %v, want %v;%s", set.name, e.Type, e.Payload, got, set.want, describe(in))
					}
				}
			}
		})
	}
}

// TestRuleExamples runs every example through decode, normalise, the real
// shell analyser and the table.
func TestRuleExamples(t *testing.T) { checkExamples(t, false) }

// TestRuleExamplesTyped runs the examples whose verdict does not depend on
// the shell analyser.
func TestRuleExamplesTyped(t *testing.T) { checkExamples(t, true) }

func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for i := range Rules() {
		r := &Rules()[i]
		if r.ID == "" || seen[r.ID] {
			t.Errorf("rule %d: empty or duplicate id %q", i, r.ID)
		}
		seen[r.ID] = true
		if r.Decision != verdict.Block && r.Decision != verdict.Escalate {
			t.Errorf("%s: decision %v, want BLOCK or ESCALATE", r.ID, r.Decision)
		}
		if len(r.Types) == 0 || r.Match == nil || r.Description == "" || r.Category == "" {
			t.Errorf("%s: needs types, a matcher, a description and a category", r.ID)
		}
		if len(r.Positive) < 2 || len(r.Negative) < 2 {
			t.Errorf("%s: %d positive and %d negative examples, want at least 2 of each", r.ID, len(r.Positive), len(r.Negative))
		}
		for _, ty := range r.Types {
			if !action.Known(ty) {
				t.Errorf("%s: unknown action type %q", r.ID, ty)
			}
		}
		for _, e := range append(append([]Example{}, r.Positive...), r.Negative...) {
			if !typeIn(e.Type, r.Types) {
				t.Errorf("%s: example type %s is not among the rule's types", r.ID, e.Type)
			}
		}
	}
}

func typeIn(t action.Type, ts []action.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// TestEvaluateOrder checks the decision contract: BLOCK beats ESCALATE
// whatever the table order, and EvaluateAll starts with Evaluate's pick.
func TestEvaluateOrder(t *testing.T) {
	in := prepare(t, sh(`sudo rm -rf /`))
	f, ok := Evaluate(in)
	if !ok || f.Decision != verdict.Block {
		t.Fatalf("got %+v %v, want a BLOCK finding;%s", f, ok, describe(in))
	}
	all := EvaluateAll(in)
	if len(all) == 0 || all[0] != f {
		t.Errorf("EvaluateAll starts with %v, want %s", all, f.ID)
	}
	routine := prepare(t, sh(`go test ./...`))
	if f, ok := Evaluate(routine); ok {
		t.Errorf("go test fired %s: %s", f.ID, f.Detail)
	}
	if _, ok := Evaluate(&Input{}); ok {
		t.Errorf("empty input fired")
	}
}

// TestDetailsHideSecrets checks that no detail echoes a secret value.
func TestDetailsHideSecrets(t *testing.T) {
	secrets := []string{"AKIA4QZ7RT2MXW9KLP3D", "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "xoxb-123456789012"}
	for i := range Rules() {
		for _, e := range Rules()[i].Positive {
			for _, f := range EvaluateAll(prepare(t, e)) {
				for _, s := range secrets {
					if strings.Contains(f.Detail, s) {
						t.Errorf("%s detail %q echoes a secret", f.ID, f.Detail)
					}
				}
			}
		}
	}
}
