package workspace

import (
	"context"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// GateApprover adapts an approval broker to the gate's tier 3.
func GateApprover(b *approval.Broker) shield.Approver { return brokerApprover{b} }

type brokerApprover struct{ b *approval.Broker }

func (a brokerApprover) Approve(ctx context.Context, e shield.Escalation) (verdict.Verdict, error) {
	ans, err := a.b.Request(ctx, approval.Ask{Session: e.Session, ActionType: e.Type, ActionHash: e.Hash,
		Payload: e.Payload, Reason: e.Verdict.Reason, Rule: e.Verdict.Rule, Stage: string(e.Verdict.Stage),
		Scope: approval.ScopeOf(e.Action, e.Effects)})
	if err != nil {
		return verdict.Verdict{}, err
	}
	return ans.Verdict(e.Hash), nil
}
