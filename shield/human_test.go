package shield

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

func TestGateAsksAHuman(t *testing.T) {
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	script := approval.NewScript("test",
		approval.Step{Response: approval.Response{Decision: approval.Allow}},
		approval.Step{Response: approval.Response{Decision: approval.Deny}})
	broker, err := approval.New(approval.Config{Recorder: log, Channels: []approval.Channel{script}})
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	g, err := New(Config{Workspace: testWS, Home: testHome, Approver: brokerApprover{broker}, Audit: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	esc := func(cmd string) verdict.Verdict {
		return g.Evaluate(ctx, Request{Session: "s1", Type: "execute_command", Payload: json.RawMessage(cmdPayload(cmd))})
	}
	if v := esc("protoc --go_out=. api.proto"); v.Decision != verdict.Allow || v.Stage != verdict.StageHuman {
		t.Errorf("approved: got %v at %s (%s)", v.Decision, v.Stage, v.Reason)
	}
	if v := esc("protoc --go_out=. other.proto"); v.Decision != verdict.Block || v.Stage != verdict.StageHuman {
		t.Errorf("denied: got %v at %s (%s)", v.Decision, v.Stage, v.Reason)
	}
	// A BLOCK never reaches the human.
	if v := g.Evaluate(ctx, Request{Session: "s1", Type: "read_file", Payload: json.RawMessage(`{"path":"~/.ssh/id_rsa"}`)}); v.Stage != verdict.StageGuard {
		t.Errorf("a guard block went to %s", v.Stage)
	}
	if n := len(script.Asks()); n != 2 {
		t.Errorf("the human was asked %d times, want 2", n)
	}
}

// brokerApprover adapts the broker as internal/workspace does (shield
// does not import approval: approval's own tests import shield).
type brokerApprover struct{ b *approval.Broker }

func (a brokerApprover) Approve(ctx context.Context, e Escalation) (verdict.Verdict, error) {
	ans, err := a.b.Request(ctx, approval.Ask{Session: e.Session, ActionType: e.Type, ActionHash: e.Hash,
		Payload: e.Payload, Reason: e.Verdict.Reason, Rule: e.Verdict.Rule, Stage: string(e.Verdict.Stage),
		Scope: approval.ScopeOf(e.Action, e.Effects)})
	if err != nil {
		return verdict.Verdict{}, err
	}
	return ans.Verdict(e.Hash), nil
}
