package main

import (
	"strings"
	"testing"
)

// TestPolicyExplainWholeGate: explain answers for the whole gate, not the
// policy stage alone: a key file the policy allows is blocked by the
// guard, and the verdict says so.
func TestPolicyExplainWholeGate(t *testing.T) {
	ws := policyEnv(t)
	tests := []struct {
		name, action string
		want         []string
	}{
		{"guard blocks what the policy allows", `{"type":"read_file","payload":{"path":"~/.ssh/id_rsa"}}`, []string{
			"guard: payload", "verdict: BLOCK (guard, tier 0, rule guard_restricted)",
			"policy  ", "not reached", `by rule "reads_elsewhere"`}},
		{"policy allows a workspace read", `{"type":"read_file","payload":{"path":"` + ws + `/a.txt"}}`, []string{
			"pass: allowed by rule workspace_reads", "verdict: ALLOW (policy, tier 0, rule workspace_reads)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runPolicy(t, "explain", "--workspace", ws, tt.action)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
