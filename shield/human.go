package shield

import (
	"context"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/verdict"
)

// Approver is tier 3 (*approval.Broker): a human answers an escalation.
type Approver interface {
	Request(ctx context.Context, a approval.Ask) (approval.Answer, error)
}

var _ Approver = (*approval.Broker)(nil)

// RuleApprovalError is the reason code of a block because no human
// answer could be had (the broker failed, or was closed).
const RuleApprovalError = "approval_error"

// human hands an ESCALATE that the earlier tiers (and the judge) could
// not decide to a human, when an approver is configured. Only escalations
// reach it: a human, or a grant, never overrides a BLOCK.
func (g *Gate) human(st *state, v verdict.Verdict) verdict.Verdict {
	if g.approver == nil || v.Decision != verdict.Escalate || st.act == nil {
		return v
	}
	ctx := st.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ans, err := g.approver.Request(ctx, approval.Ask{Session: st.req.Session, ActionType: st.req.Type,
		ActionHash: st.hash, Payload: st.req.Payload, Reason: v.Reason, Rule: v.Rule, Stage: string(v.Stage),
		Scope: approval.ScopeOf(st.act, st.effects)})
	if err != nil {
		return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageHuman, Tier: 3, Rule: RuleApprovalError,
			Reason: "no human answer could be had (" + err.Error() + "); blocked to fail closed", Hash: st.hash}
	}
	return ans.Verdict(st.hash)
}
