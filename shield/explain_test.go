package shield

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// TestExplainNamesEveryStep: stepNames covers the pipeline, step for step.
func TestExplainNamesEveryStep(t *testing.T) {
	if len(stepNames) != len(pipeline) {
		t.Fatalf("stepNames has %d names for %d steps: name the new step", len(stepNames), len(pipeline))
	}
}

// TestExplain: the steps say who decided and the final verdict is
// Evaluate's, whichever stage decides (not only the policy's).
func TestExplain(t *testing.T) {
	g := newTestGate(t, "default")
	tests := []struct {
		name      string
		typ       string
		payload   any
		decidedBy string
		final     verdict.Decision
	}{
		{"guard blocks a key the policy allows", "read_file", map[string]string{"path": "~/.ssh/id_rsa"}, "guard: payload", verdict.Block},
		{"policy allows a workspace read", "read_file", map[string]string{"path": g.ws + "/a.txt"}, "judge", verdict.Allow},
		{"bad payload", "read_file", map[string]int{"path": 1}, "decode", verdict.Block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := json.Marshal(tt.payload)
			r := Request{Session: "s", Type: tt.typ, Payload: p}
			ex := g.Explain(context.Background(), r)
			if ex.Final.Decision != tt.final {
				t.Errorf("final: got %v, want %v", ex.Final, tt.final)
			}
			if want := g.Fresh().Evaluate(context.Background(), r); want.Decision != ex.Final.Decision || want.Rule != ex.Final.Rule {
				t.Errorf("final %v differs from Evaluate's %v", ex.Final, want)
			}
			decided := ""
			for i, s := range ex.Steps {
				if s.Decided {
					if decided != "" {
						t.Errorf("steps %q and %q both decided", decided, s.Step)
					}
					decided = s.Step
					for _, later := range ex.Steps[i+1:] {
						if later.Reached {
							t.Errorf("step %q reached after %q decided", later.Step, s.Step)
						}
					}
				}
			}
			if decided != tt.decidedBy {
				t.Errorf("decided by %q, want %q", decided, tt.decidedBy)
			}
		})
	}
}
