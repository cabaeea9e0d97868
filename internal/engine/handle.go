package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// call is one proposal moving through the pipeline.
type call struct {
	pr      Proposal
	v       verdict.Verdict
	act     *action.Action
	ex      Executor
	out     Outcome
	audited bool
}

// Handle runs one proposal through every step, in order: executor
// lookup, the gate (decode, every stage, judge and human as
// configured; the gate audits its decision), escalation → BLOCK,
// Chronicle snapshot of what it may change, the executor's plan, the
// hash re-verified against the decided one, an ActionStarted entry,
// the executor, classification of the result, an ActionExecuted or
// ActionFailed entry, the answer. A step that fails ends the call with a
// BLOCK or an error result carrying its reason code; a panic anywhere
// is an engine_internal_error BLOCK, never an ALLOW.
func (p *Pipeline) Handle(ctx context.Context, pr Proposal) (out Outcome) {
	c := &call{pr: pr, audited: true}
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("engine: panic in the pipeline", "type", pr.Type, "session", pr.Session)
			if c.out.Executed {
				// It ran; what it returned is lost: the agent gets an error.
				c.out.Result = Result{IsError: true, Output: refusalText(RuleInternalError,
					"internal error in the engine after the action ran; its result is withheld")}
				out = c.out
				return
			}
			out = p.refuse(ctx, c, RuleInternalError, "internal error in the engine; blocked to fail closed")
		}
	}()
	return p.run(ctx, c)
}

func (p *Pipeline) run(ctx context.Context, c *call) Outcome {
	if c.ex = p.cfg.Executors[action.Type(c.pr.Type)]; c.ex == nil {
		return p.refuse(ctx, c, RuleNoExecutor, fmt.Sprintf("no executor runs %q actions here", clipName(c.pr.Type)))
	}
	c.pr.Payload = resolveRelative(c.pr.Type, c.pr.Payload, p.cfg.Workspace)
	c.v = p.cfg.Gate.Evaluate(ctx, shield.Request{Session: c.pr.Session, Type: c.pr.Type, Payload: c.pr.Payload})
	switch c.v.Decision {
	case verdict.Allow:
	case verdict.Escalate:
		return p.refuse(ctx, c, RuleEscalationUnanswered, "needs a judge or a human and none could answer ("+
			c.v.Rule+": "+c.v.Reason+"); blocked to fail closed")
	default:
		c.audited = c.v.Rule != RuleAuditError
		return p.blocked(c, c.v)
	}
	act, err := action.Decode(c.pr.Type, c.pr.Payload)
	if err == nil {
		err = action.Normalize(act, action.Env{Home: p.cfg.Home})
	}
	if err != nil {
		return p.refuse(ctx, c, RuleDecodeError, "cannot decode the action the gate allowed: "+err.Error())
	}
	c.act = act
	if out, stop := p.snapshot(ctx, c); stop {
		return out
	}
	plan := act
	if prep, ok := c.ex.(Preparer); ok {
		if plan, err = p.prepare(ctx, prep, act); err != nil {
			return p.refuse(ctx, c, RulePrepareFailed, "the executor could not plan the action: "+p.mask(err.Error()))
		}
	}
	// A plan that will not reach its executor is dropped, whatever ends
	// the call.
	executed := false
	if res, ok := c.ex.(Resolver); ok {
		defer func() {
			if !executed {
				res.Discard(plan)
			}
		}()
		if why := p.resolvedElsewhere(res.Resolved(plan)); why != "" {
			return p.refuse(ctx, c, RulePathResolved, why)
		}
	}
	// TOCTOU: what is about to run must be what was decided.
	if err := action.Verify(plan, c.v.Hash); err != nil {
		return p.refuse(ctx, c, RuleHashMismatch, "the action changed between the decision and its execution ("+
			p.mask(err.Error())+"); refused")
	}
	if err := p.append(ctx, p.event(c, audit.ActionStarted, CodeStarted)); err != nil {
		return p.refuse(ctx, c, RuleAuditError, "the start of the execution could not be written to the audit chain; blocked to fail closed")
	}
	executed = true
	return p.execute(ctx, c, plan)
}

// resolvedElsewhere judges again each path of a plan that leads somewhere
// other than the path the gate decided on: the gate's guard must find
// nothing there for the access the action makes, and a write must stay
// in the workspace if its name was there. It says why not, or "".
func (p *Pipeline) resolvedElsewhere(paths []ResolvedPath) string {
	g, _ := p.cfg.Gate.(interface{ Guard() *guard.Guard })
	ws, realWS := p.cfg.Workspace, ""
	for _, rp := range paths {
		if rp.Resolved == "" || rp.Resolved == rp.Named {
			continue
		}
		if realWS == "" { // only when a path leads elsewhere: not on every call
			var err error
			if realWS, err = filepath.EvalSymlinks(ws); err != nil {
				realWS = ws
			}
		}
		if g == nil || g.Guard() == nil {
			return fmt.Sprintf("%s leads elsewhere than the path decided on and there is no guard to judge it; refused", rp.Field)
		}
		acc := rp.Access
		if acc == 0 {
			acc = action.AccessRead
		}
		if f, found := g.Guard().Check(rp.Resolved, acc); found && f.Decision != verdict.Allow {
			return fmt.Sprintf("%s now leads to a path the gate protects (%s); refused", rp.Field, f.Rule)
		}
		inside := func(p string) bool { return within(p, ws) || within(p, realWS) }
		if acc&(action.AccessWrite|action.AccessDelete) != 0 && inside(rp.Named) && !inside(rp.Resolved) {
			return fmt.Sprintf("%s names a file in the workspace but now leads outside it; refused", rp.Field)
		}
	}
	return ""
}

// prepare calls the executor's planner, a panic being its error.
func (p *Pipeline) prepare(ctx context.Context, prep Preparer, act *action.Action) (plan *action.Action, err error) {
	defer func() {
		if r := recover(); r != nil {
			plan, err = nil, fmt.Errorf("the planner panicked")
		}
	}()
	plan, err = prep.Prepare(ctx, act)
	if err == nil && plan == nil {
		err = fmt.Errorf("the planner returned no action")
	}
	return plan, err
}

// snapshot takes the Chronicle snapshot of what the call may change; a
// failure is audited and ends the call (a change that could not be
// undone is refused).
func (p *Pipeline) snapshot(ctx context.Context, c *call) (Outcome, bool) {
	targets := p.targets(c.act)
	if len(targets) == 0 {
		return Outcome{}, false
	}
	var err error
	ev := audit.Event{Session: c.pr.Session, ActionType: c.pr.Type, ActionHash: c.v.Hash}
	if p.cfg.Snapshots == nil {
		err = fmt.Errorf("no Chronicle is configured")
	} else {
		c.out.Snapshot, err = p.takeSnapshot(ctx, ev, c, targets)
	}
	if err == nil {
		return Outcome{}, false
	}
	v := verdict.Verdict{Decision: verdict.Block, Stage: "chronicle", Rule: RuleSnapshotFailed, Hash: c.v.Hash,
		Reason: "Chronicle could not snapshot what this " + c.pr.Type + " changes, so it could not be undone; refused (" +
			p.mask(err.Error()) + ")"}
	e := audit.FromVerdict(audit.ChronicleSnapshotFailed, c.pr.Session, c.pr.Type, v)
	e.Detail = audit.Detail{Code: CodeSnapshotFailure, Message: "call " + clipName(c.pr.CallID)}
	if aerr := p.append(ctx, e); aerr != nil {
		c.audited = false
	}
	return p.blocked(c, v), true
}

func (p *Pipeline) takeSnapshot(ctx context.Context, ev audit.Event, c *call, targets []snapshot.Target) (id int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			id, err = 0, fmt.Errorf("the snapshot panicked")
		}
	}()
	return p.cfg.Snapshots.Snapshot(ctx, ev, "engine "+c.pr.Type+" call "+clipName(c.pr.CallID), targets)
}

// refuse ends a call with the engine's own BLOCK, audited.
func (p *Pipeline) refuse(ctx context.Context, c *call, rule, reason string) Outcome {
	v := verdict.Verdict{Decision: verdict.Block, Stage: StageEngine, Rule: rule, Reason: clipReason(reason), Hash: c.v.Hash}
	e := audit.FromVerdict(audit.ActionBlocked, c.pr.Session, clipName(c.pr.Type), v)
	e.Detail = audit.Detail{Message: "call " + clipName(c.pr.CallID)}
	if err := p.append(ctx, e); err != nil {
		c.audited = false
	}
	return p.blocked(c, v)
}

// blocked is the outcome of a refused call.
func (p *Pipeline) blocked(c *call, v verdict.Verdict) Outcome {
	c.out.Verdict = v
	c.out.Result = Result{IsError: true, Output: refusalText(v.Rule, v.Reason)}
	c.out.Audited = c.audited
	return c.out
}

// refusalText is what the agent reads for a refused call: the rule and
// the reason, so it can adapt.
func refusalText(rule, reason string) string {
	return "Blocked by Parallax (" + rule + "): " + reason
}

// append writes e to the chain, even when the caller gave up waiting.
func (p *Pipeline) append(ctx context.Context, e audit.Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the audit writer panicked")
		}
	}()
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	if _, err = p.cfg.Audit.Append(ctx, e); err != nil {
		p.log.Error("engine: audit", "type", e.Type, "rule", e.Rule, "error", err)
	}
	return err
}

// event is an entry about the call's allowed action.
func (p *Pipeline) event(c *call, t audit.EventType, code string) audit.Event {
	return audit.Event{Type: t, Session: c.pr.Session, ActionType: c.pr.Type, ActionHash: c.v.Hash,
		Decision: c.v.Decision.String(), Stage: string(c.v.Stage), Tier: c.v.Tier, Rule: c.v.Rule,
		Detail: audit.Detail{Code: code, Message: "call " + clipName(c.pr.CallID)}}
}

// mask removes what DLP finds in text the agent or a log would read.
func (p *Pipeline) mask(s string) string {
	out, _ := p.dlp.Redact(s)
	return out
}

// clipName bounds an identifier the agent chose before it is echoed.
func clipName(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

func clipReason(s string) string {
	if len(s) > 400 {
		return strings.ToValidUTF8(s[:397], "") + "..."
	}
	return s
}
