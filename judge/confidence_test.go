package judge

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// TestConfidenceMustBeANumberInRange: NaN and the infinities are not
// confidences. NaN compares false with everything, so it slipped past
// the range check and past the low-confidence escalation: a supervisor
// answering "ALLOW, confidence NaN" was an ALLOW.
func TestConfidenceMustBeANumberInRange(t *testing.T) {
	sup := func(conf string) string {
		return fmt.Sprintf("CANARY: %s\nDECISION: ALLOW\nCONFIDENCE: %s\nREASON: reads one note", canary, conf)
	}
	tests := []struct {
		conf string
		want verdict.Decision
		rule string
	}{
		{"NaN", verdict.Block, RuleMalformed},
		{"nan", verdict.Block, RuleMalformed},
		{"-NaN", verdict.Block, RuleMalformed},
		{"Inf", verdict.Block, RuleMalformed},
		{"+Inf", verdict.Block, RuleMalformed},
		{"-Inf", verdict.Block, RuleMalformed},
		{"infinity", verdict.Block, RuleMalformed},
		{"1e400", verdict.Block, RuleMalformed},
		{"-0.01", verdict.Block, RuleMalformed},
		{"1.0000001", verdict.Block, RuleMalformed},
		{"0", verdict.Escalate, RuleLowConfidence},
		{"-0", verdict.Escalate, RuleLowConfidence},
		{"0.7", verdict.Escalate, RuleLowConfidence},
		{"0.71", verdict.Allow, RuleJudge},
		{"1", verdict.Allow, RuleJudge},
	}
	for _, tc := range tests {
		t.Run(tc.conf, func(t *testing.T) {
			_, err := parseAnswer(sup(tc.conf), canary, true)
			if (err != nil) != (tc.rule == RuleMalformed) {
				t.Errorf("parseAnswer: got error %v, want an error: %v", err, tc.rule == RuleMalformed)
			}
			j, _ := newJudge(t, &scripted{answers: []string{sup(tc.conf)}}, func(c *Config) { c.Profile = SupervisorProfile() })
			a := in(`{"query":"select * from notes"}`)
			a.Type, a.Scope = "memory_search", "memory_search:notes"
			v := j.Evaluate(context.Background(), a)
			if v.Decision != tc.want || v.Rule != tc.rule {
				t.Errorf("got %v %s (%s), want %v %s", v.Decision, v.Rule, v.Reason, tc.want, tc.rule)
			}
		})
	}
}

// TestNaNThresholdAsksAHuman: a profile whose threshold is NaN sends
// every answer to a human rather than none.
func TestNaNThresholdAsksAHuman(t *testing.T) {
	answer := fmt.Sprintf("CANARY: %s\nDECISION: ALLOW\nCONFIDENCE: 0.99\nREASON: reads one note", canary)
	j, _ := newJudge(t, &scripted{answers: []string{answer}}, func(c *Config) {
		c.Profile = SupervisorProfile()
		c.Profile.MinConfidence = math.NaN()
	})
	a := in(`{"query":"select * from notes"}`)
	a.Type, a.Scope = "memory_search", "memory_search:notes"
	if v := j.Evaluate(context.Background(), a); v.Decision != verdict.Escalate || v.Rule != RuleLowConfidence {
		t.Errorf("got %v %s (%s), want ESCALATE %s", v.Decision, v.Rule, v.Reason, RuleLowConfidence)
	}
}
