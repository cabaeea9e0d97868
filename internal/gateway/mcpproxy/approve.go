package mcpproxy

import (
	"context"
	"fmt"
	"slices"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Broker is tier 3 as the proxy uses it (*approval.Broker): it asks a
// human (or finds a grant) and records every step in the audit chain.
type Broker interface {
	Request(ctx context.Context, a approval.Ask) (approval.Answer, error)
}

var _ Broker = (*approval.Broker)(nil)

// approve decides an escalated call: a standing trust (--trust-tool)
// first, then the approval broker (tier 3: the terminal, grants, the
// hourly cap), else nobody (BLOCK). The broker audits what it asks and
// what it is told; the proxy audits its own outcomes. An outcome that
// cannot be audited is a BLOCK.
func (p *Proxy) approve(ctx context.Context, name, hash string, r shield.Request, v verdict.Verdict) verdict.Verdict {
	if v.Decision != verdict.Escalate {
		// Only an escalation may be lifted; anything else is refused.
		return verdict.Verdict{Decision: verdict.Block, Stage: v.Stage, Tier: v.Tier, Rule: v.Rule, Reason: v.Reason, Hash: v.Hash}
	}
	record := func(t audit.EventType, out verdict.Verdict) verdict.Verdict {
		e := audit.FromVerdict(t, p.cfg.Session, r.Type, out)
		e.Detail = audit.Detail{Ref: p.cfg.ServerID, Message: "tool " + name}
		if err := p.appendAudit(ctx, e); err != nil && out.Decision == verdict.Allow {
			return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageHuman, Tier: 3, Rule: shield.RuleAuditError,
				Reason: "the approval could not be written to the audit chain; blocked to fail closed", Hash: v.Hash}
		}
		return out
	}
	human := func(d verdict.Decision, rule, reason string) verdict.Verdict {
		return verdict.Verdict{Decision: d, Stage: verdict.StageHuman, Tier: 3, Rule: rule, Reason: reason, Hash: v.Hash}
	}
	if slices.Contains(p.cfg.TrustTools, name) {
		return record(audit.ActionApproved, human(verdict.Allow, RuleTrustedTool,
			"tool "+name+" is trusted by the proxy's configuration (--trust-tool); escalated by "+v.Rule))
	}
	switch ok, err := p.trusted(ctx, name, hash); {
	case err != nil:
		return record(audit.ActionBlocked, human(verdict.Block, RuleApprovalUnavailable,
			"the stored trust of this tool could not be read ("+redactErr(p.dlp, err)+"); blocked to fail closed: "+v.Reason))
	case ok:
		return record(audit.ActionApproved, human(verdict.Allow, RuleTrustedTool,
			"tool "+name+" is trusted (parallax mcp trust, for this definition); escalated by "+v.Rule))
	}
	if p.cfg.Approver == nil {
		return record(audit.ActionBlocked, human(verdict.Block, RuleApprovalUnavailable,
			"needs approval; no approval channel"+p.cfg.NoApproval+": "+v.Reason+
				fmt.Sprintf(". To let this tool's escalations through without asking, run `parallax mcp trust %s %s` "+
					"(a BLOCK is never lifted); or run the proxy where a terminal can ask", p.cfg.ServerID, name)))
	}
	ans, err := p.cfg.Approver.Request(ctx, approval.Ask{Session: p.cfg.Session, ActionType: r.Type,
		ActionHash: v.Hash, Payload: r.Payload, Reason: v.Reason, Rule: v.Rule, Stage: string(v.Stage),
		Scope: p.scope(r)})
	out := ans.Verdict(v.Hash)
	if err == nil {
		return out
	}
	out.Decision = verdict.Block // an error never comes with an allow; be sure
	if out.Rule == "" {
		out.Rule = approval.CodeError
	}
	out.Reason = "no human answer could be had (" + redactErr(p.dlp, err) + "); blocked to fail closed"
	if ans.AskID == "" {
		// Refused before a request existed: the broker recorded nothing.
		return record(audit.ActionBlocked, out)
	}
	return out
}

// trusted reports whether a stored trust (parallax mcp trust) covers
// tool with the definition hash it is served with. It is read at each
// escalation, so a trust or its removal takes effect at once.
func (p *Proxy) trusted(ctx context.Context, tool, hash string) (bool, error) {
	pf, err := p.cfg.Pins.Load(ctx)
	if err != nil {
		return false, err
	}
	return pf.Trusted(p.cfg.ServerID, tool, hash), nil
}

// scope is what the request touches, for the grants a human may give.
// Anything that does not decode is opaque (no pattern is offered).
func (p *Proxy) scope(r shield.Request) approval.Scope {
	a, err := action.Decode(r.Type, r.Payload)
	if err != nil || action.Normalize(a, action.Env{Home: p.cfg.Home}) != nil {
		return approval.Scope{Opaque: true}
	}
	var eff *shell.Effects
	if c, ok := a.Payload.(*action.ExecuteCommandPayload); ok {
		eff = shell.Analyze(c.Command, shell.Options{Cwd: p.cfg.Workspace, Home: p.cfg.Home})
	}
	return approval.ScopeOf(a, eff)
}
