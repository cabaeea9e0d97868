package shield

import (
	"context"
	"encoding/json"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Escalation is what the deterministic tiers and the judge could not
// decide, for a human.
type Escalation struct {
	Session string
	Type    string
	Payload json.RawMessage
	Hash    string
	Verdict verdict.Verdict // the ESCALATE, with the rule and reason to show
	Action  *action.Action  // decoded and normalised
	Effects *shell.Effects  // the analysis of its shell code, if any
}

// Approver is tier 3: a human answers an escalation with ALLOW or BLOCK
// (an approval broker; internal/workspace adapts *approval.Broker).
type Approver interface {
	Approve(ctx context.Context, e Escalation) (verdict.Verdict, error)
}

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
	out, err := g.approver.Approve(ctx, Escalation{Session: st.req.Session, Type: st.req.Type, Payload: st.req.Payload,
		Hash: st.hash, Verdict: v, Action: st.act, Effects: st.effects})
	if err == nil && out.Decision == verdict.Escalate {
		err = errNoAnswer
	}
	if err != nil {
		return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageHuman, Tier: 3, Rule: RuleApprovalError,
			Reason: "no human answer could be had (" + err.Error() + "); blocked to fail closed", Hash: st.hash}
	}
	out.Hash = st.hash
	return out
}

type humanError string

func (e humanError) Error() string { return string(e) }

// errNoAnswer: an approver must answer ALLOW or BLOCK.
const errNoAnswer = humanError("the approver answered neither allow nor deny")
