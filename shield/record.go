package shield

import (
	"context"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// Appender is the audit chain the gate writes every decision to
// (*audit.Log). Append returns once the entry is durable.
type Appender interface {
	Append(ctx context.Context, e audit.Event) (audit.Entry, error)
}

var _ Appender = (*audit.Log)(nil)

// RuleAuditError is the reason code of a block because the decision could
// not be made durable: nothing runs that the audit chain does not hold.
const RuleAuditError = "audit_error"

// eventType is the audit event of a decision.
func eventType(d verdict.Decision) audit.EventType {
	switch d {
	case verdict.Allow:
		return audit.ActionEvaluated
	case verdict.Escalate:
		return audit.ActionEscalated
	}
	return audit.ActionBlocked
}

// record appends the decision to the audit chain, when the gate has one.
// A decision that would let the action run becomes a BLOCK when the entry
// cannot be written; a BLOCK stays a BLOCK.
func (g *Gate) record(ctx context.Context, r *Request, v verdict.Verdict) verdict.Verdict {
	if g.audit == nil {
		return v
	}
	if ctx == nil || ctx.Err() != nil {
		// The entry must land even when the caller gave up waiting.
		ctx = context.WithoutCancel(orBackground(ctx))
	}
	e := audit.FromVerdict(eventType(v.Decision), r.Session, r.Type, v)
	e.Detail.Target = action.Target(r.Payload)
	if _, err := g.audit.Append(ctx, e); err != nil {
		if v.Decision == verdict.Block {
			return v
		}
		return verdict.Verdict{Decision: verdict.Block, Stage: v.Stage, Tier: v.Tier, Rule: RuleAuditError,
			Reason: "the decision could not be written to the audit chain (" + err.Error() + "); blocked to fail closed",
			Hash:   v.Hash}
	}
	return v
}

// recordSafely is record that turns a panic of the audit writer into a
// BLOCK.
func (g *Gate) recordSafely(ctx context.Context, r *Request, v verdict.Verdict) (out verdict.Verdict) {
	defer func() {
		if p := recover(); p != nil {
			out = verdict.Verdict{Decision: verdict.Block, Stage: v.Stage, Rule: RuleAuditError,
				Reason: "internal error in the audit writer; blocked to fail closed", Hash: v.Hash}
		}
	}()
	return g.record(ctx, r, v)
}

func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// Refuse records v, a BLOCK made before any request could be decoded,
// in the audit chain; it returns v, or the audit_error BLOCK when the
// entry could not be written.
func (g *Gate) Refuse(ctx context.Context, v verdict.Verdict) (out verdict.Verdict) {
	defer func() {
		if p := recover(); p != nil {
			out = verdict.Verdict{Decision: verdict.Block, Stage: v.Stage, Rule: RuleAuditError,
				Reason: "internal error in the audit writer; blocked to fail closed"}
		}
	}()
	v.Decision = verdict.Block
	v.Reason = clip(v.Reason)
	if g.audit == nil {
		return v
	}
	if ctx == nil || ctx.Err() != nil {
		ctx = context.WithoutCancel(orBackground(ctx))
	}
	if _, err := g.audit.Append(ctx, audit.FromVerdict(audit.ActionBlocked, "", "", v)); err != nil {
		return verdict.Verdict{Decision: verdict.Block, Stage: v.Stage, Rule: RuleAuditError,
			Reason: "the refusal could not be written to the audit chain (" + err.Error() + ")"}
	}
	return v
}
