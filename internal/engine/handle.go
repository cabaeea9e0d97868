package engine

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// call is one proposal moving through the pipeline.
type call struct {
	pr       Proposal
	v        verdict.Verdict
	act      *action.Action
	ex       Executor
	plan     Plan                  // the executor's plan, taken before the decision
	resolved []shield.ResolvedPath // its paths, as the gate judged them
	env      map[string]string     // the command's environment, as the gate judged it
	skipped  []snapshot.Skip       // what it may change that its snapshot could not take
	out      Outcome
	audited  bool
}

// Handle runs one proposal through every step, in order (doc.go):
// executor lookup, the executor's plan, the gate on action and plan
// (decode, every stage, judge and human as configured; the gate audits
// its decision), escalation → BLOCK, Chronicle snapshot of what it may
// change, the hash of action and plan re-verified and the plan taken
// again, the executor's Validate and Provision, an ActionStarted entry,
// the executor and its Cleanup, classification of the result, an
// ActionExecuted or ActionFailed entry, the answer. A step that fails ends the call with a
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
	req := shield.Request{Session: c.pr.Session, Type: c.pr.Type, Payload: c.pr.Payload}
	// The plan is taken before the decision, so that the gate judges what
	// will be touched. An action that does not decode is the gate's to
	// refuse.
	act, decodeErr := action.Decode(c.pr.Type, c.pr.Payload)
	if decodeErr == nil {
		decodeErr = action.Normalize(act, action.Env{Home: p.cfg.Home})
	}
	prep, _ := c.ex.(Preparer)
	if decodeErr == nil && prep != nil {
		var err error
		if c.plan, err = p.prepare(ctx, prep, act); err != nil {
			return p.refuse(ctx, c, RulePrepareFailed, "the executor could not plan the action: "+p.mask(err.Error()))
		}
		req.Resolved = c.plan.Paths()
	}
	c.resolved = req.Resolved
	if ce, ok := c.ex.(CommandEnver); ok && c.pr.Type == string(action.ExecuteCommand) {
		req.Env = ce.CommandEnv()
		c.env = req.Env
	}
	c.v = p.cfg.Gate.Evaluate(ctx, req)
	switch c.v.Decision {
	case verdict.Allow:
	case verdict.Escalate:
		return p.refuse(ctx, c, RuleEscalationUnanswered, "needs a judge or a human and none could answer ("+
			c.v.Rule+": "+c.v.Reason+"); blocked to fail closed")
	default:
		c.audited = c.v.Rule != RuleAuditError
		return p.blocked(c, c.v)
	}
	if decodeErr != nil {
		return p.refuse(ctx, c, RuleDecodeError, "cannot decode the action the gate allowed: "+decodeErr.Error())
	}
	c.act = act
	if out, stop := p.snapshot(ctx, c); stop {
		return out
	}
	// TOCTOU: what is about to run must be what was decided, and its
	// paths must still lead where they led.
	h, err := action.Hash(act)
	if err == nil && subtle.ConstantTimeCompare([]byte(shield.PlanHash(h, c.resolved)), []byte(c.v.Hash)) != 1 {
		err = fmt.Errorf("%w: the action or its plan is not the one evaluated", action.ErrHashMismatch)
	}
	if err != nil {
		return p.refuse(ctx, c, RuleHashMismatch, "the action changed between the decision and its execution ("+
			p.mask(err.Error())+"); refused")
	}
	if prep != nil {
		now, err := p.prepare(ctx, prep, act)
		if err != nil {
			return p.refuse(ctx, c, RulePrepareFailed, "the executor could not plan the action again: "+p.mask(err.Error()))
		}
		// The decided plan's hash was checked above: the new plan must be
		// that plan.
		if changed := planChange(c.resolved, now.Paths()); changed != "" {
			return p.refuse(ctx, c, RulePathChanged, "a path resolves differently than when the call was decided ("+
				changed+"); refused")
		}
	}
	call := Call{Action: act, Plan: c.plan, Session: c.pr.Session, CallID: c.pr.CallID, Verdict: c.v, Env: c.env}
	if v, ok := c.ex.(Validator); ok {
		if err := p.step(func() error { return v.Validate(ctx, call) }); err != nil {
			return p.refuse(ctx, c, RuleValidateFailed, "the executor refused the call: "+p.mask(err.Error()))
		}
	}
	if pv, ok := c.ex.(Provisioner); ok {
		err := p.step(func() (err error) { call.State, err = pv.Provision(ctx, call); return err })
		if err != nil {
			return p.refuse(ctx, c, RuleProvisionFailed, "the call's sandbox or resources could not be set up: "+p.mask(err.Error()))
		}
	}
	if err := p.append(ctx, p.event(c, audit.ActionStarted, CodeStarted)); err != nil {
		p.cleanup(ctx, c.ex, call, &Result{})
		return p.refuse(ctx, c, RuleAuditError, "the start of the execution could not be written to the audit chain; blocked to fail closed")
	}
	return p.execute(ctx, c, call)
}

// planChange names the first path of a plan that resolves differently
// now, or "" when none does.
func planChange(was, now []shield.ResolvedPath) string {
	if len(was) != len(now) {
		return "the plan has another number of paths"
	}
	for i := range was {
		if was[i] != now[i] {
			return clipName(was[i].Field) + " now leads elsewhere or to another file"
		}
	}
	return ""
}

// step runs one of an executor's optional steps, a panic being its
// error.
func (p *Pipeline) step(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the executor panicked")
		}
	}()
	return f()
}

// cleanup runs the executor's Cleanup, if it has one; a panic is
// logged, never raised.
func (p *Pipeline) cleanup(ctx context.Context, ex Executor, call Call, res *Result) {
	cl, ok := ex.(Cleaner)
	if !ok {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("engine: executor cleanup panicked", "type", call.Action.Type)
		}
	}()
	cl.Cleanup(ctx, call, res)
}

// prepare calls the executor's planner, a panic being its error.
func (p *Pipeline) prepare(ctx context.Context, prep Preparer, act *action.Action) (plan Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			plan, err = nil, fmt.Errorf("the planner panicked")
		}
	}()
	plan, err = prep.Prepare(ctx, act)
	if err == nil && plan == nil {
		err = fmt.Errorf("the planner returned no plan")
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
		c.out.Snapshot, c.skipped, err = p.takeSnapshot(ctx, ev, c, targets)
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

func (p *Pipeline) takeSnapshot(ctx context.Context, ev audit.Event, c *call, targets []snapshot.Target) (id int64, skipped []snapshot.Skip, err error) {
	defer func() {
		if r := recover(); r != nil {
			id, skipped, err = 0, nil, fmt.Errorf("the snapshot panicked")
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
