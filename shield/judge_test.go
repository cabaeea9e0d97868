package shield

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/parallax/parallax/judge"
	"github.com/parallax/parallax/verdict"
)

const testCanary = "canary-0123456789abcdef"

// oneAnswer answers every question with the same decision, and counts.
type oneAnswer struct {
	decision string
	asked    []string
}

func (o *oneAnswer) Name() string { return "fake/one" }

func (o *oneAnswer) Ask(_ context.Context, _, user string) (judge.Reply, error) {
	o.asked = append(o.asked, user)
	return judge.Reply{Text: fmt.Sprintf("CANARY: %s\nDECISION: %s\nREASON: scripted", testCanary, o.decision)}, nil
}

func TestGateAsksTheJudge(t *testing.T) {
	for _, d := range []string{"ALLOW", "BLOCK", "ESCALATE"} {
		t.Run(d, func(t *testing.T) {
			m := &oneAnswer{decision: d}
			j, err := judge.New(judge.Config{Model: m, Canary: testCanary})
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(Config{Workspace: testWS, Home: testHome, Judge: j})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// protoc is unknown to the knowledge base: the heuristics escalate.
			v := g.Evaluate(ctx, Request{Session: "s1", Type: "execute_command", Payload: json.RawMessage(cmdPayload("protoc --go_out=. api.proto"))})
			want, _ := verdict.Parse(d)
			if v.Decision != want || v.Stage != verdict.StageJudge || v.Tier != 2 {
				t.Errorf("got %v at %s tier %d (%s), want %v from the judge", v.Decision, v.Stage, v.Tier, v.Reason, want)
			}
			if len(m.asked) != 1 || !strings.Contains(m.asked[0], "unknown_program") || !strings.Contains(m.asked[0], "protoc --go_out") {
				t.Errorf("the judge was asked %q", m.asked)
			}
			// Plain decisions never reach the judge.
			g.Evaluate(ctx, Request{Type: "execute_command", Payload: json.RawMessage(cmdPayload("git status"))})
			g.Evaluate(ctx, Request{Type: "read_file", Payload: json.RawMessage(`{"path":"~/.ssh/id_rsa"}`)})
			if len(m.asked) != 1 {
				t.Errorf("the judge was asked about decided actions: %d questions", len(m.asked))
			}
		})
	}
}
