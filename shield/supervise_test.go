package shield

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/parallax/parallax/judge"
	"github.com/parallax/parallax/verdict"
)

// confident answers ALLOW with a set confidence.
type confident struct {
	conf  string
	asked int
}

func (c *confident) Name() string { return "fake/supervisor" }

func (c *confident) Ask(context.Context, string, string) (judge.Reply, error) {
	c.asked++
	return judge.Reply{Text: fmt.Sprintf("CANARY: %s\nDECISION: ALLOW\nCONFIDENCE: %s\nREASON: the task needs it", testCanary, c.conf)}, nil
}

func TestGateSupervisesSensitiveAccess(t *testing.T) {
	tests := []struct {
		name, conf, typ, payload string
		want                     verdict.Decision
		stage                    verdict.Stage
		asked                    int
	}{
		{"memory, confident", "0.95", "memory_search", `{"query":"project deadlines"}`, verdict.Allow, verdict.StageJudge, 1},
		{"memory, unsure", "0.40", "memory_search", `{"query":"everything about the user"}`, verdict.Escalate, verdict.StageJudge, 1},
		{"screenshot", "0.95", "browser_screenshot", `{}`, verdict.Allow, verdict.StageJudge, 1},
		{"ordinary read", "0.95", "read_file", `{"path":"/home/dev/project/README.md"}`, verdict.Allow, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &confident{conf: tc.conf}
			sup, err := judge.New(judge.Config{Model: m, Canary: testCanary, Profile: judge.SupervisorProfile()})
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(Config{Workspace: testWS, Home: testHome, Supervisor: sup, Policy: "permissive"})
			if err != nil {
				t.Fatal(err)
			}
			v := g.Evaluate(context.Background(), Request{Session: "s1", Type: tc.typ, Payload: json.RawMessage(tc.payload)})
			if v.Decision != tc.want || tc.stage != "" && v.Stage != tc.stage || m.asked != tc.asked {
				t.Errorf("got %v at %s (%s) after %d questions, want %v at %q after %d", v.Decision, v.Stage, v.Reason, m.asked, tc.want, tc.stage, tc.asked)
			}
		})
	}
}
