package shield

import (
	"context"
	"fmt"

	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/verdict"
)

// StageView is what one step of the pipeline made of a request.
type StageView struct {
	Stage   verdict.Stage
	Step    string          // which check of the stage (guard and ifc have two)
	Reached bool            // false: an earlier step had decided
	Decided bool            // this step decided: Verdict is its verdict
	Verdict verdict.Verdict // when Decided
	Note    string          // what it left for later steps (tier raised, escalation, policy result)
}

// Explanation is the whole gate's view of one request: every step in
// order, and the verdict Evaluate gives.
type Explanation struct {
	Steps []StageView
	Final verdict.Verdict
}

// stepNames tells apart the steps of the pipeline that share a stage.
var stepNames = []string{"decode", "verify", "guard: payload", "fast path", "guard: effects",
	"policy", "text for later", "heuristics", "runnable files", "manifest sources", "ifc: download then execute", "ifc: flows", "judge"}

// Explain runs the gate's steps on r one by one, as Evaluate does, and
// reports what each made of it, then the verdict Evaluate gives. Both
// runs use a fresh copy of the gate (Fresh): the session memory of g is
// neither read nor changed. With a judge or an approver configured they
// are asked as Evaluate asks them; with an audit chain, the final
// evaluation is recorded.
func (g *Gate) Explain(ctx context.Context, r Request) Explanation {
	var ex Explanation
	trace := g.Fresh()
	st := statePool.Get().(*state)
	st.ctx, st.reqv = ctx, r
	st.req, st.paths = &st.reqv, st.pathBuf[:0]
	decided := false
	for i, s := range trace.stages {
		view := StageView{Stage: s.name, Step: string(s.name)}
		if i < len(stepNames) {
			view.Step = stepNames[i]
		}
		if !decided {
			view.Reached = true
			before := *st
			out, done := runStep(trace, st, s)
			if done {
				view.Decided, view.Verdict, decided = true, out, true
			} else {
				view.Note = stepNote(&before, st)
			}
		}
		ex.Steps = append(ex.Steps, view)
	}
	st.release()
	ex.Final = g.Fresh().Evaluate(ctx, r)
	return ex
}

// runStep runs one step; a panic is the BLOCK Evaluate would give.
func runStep(g *Gate, st *state, s stage) (v verdict.Verdict, done bool) {
	defer func() {
		if p := recover(); p != nil {
			v, done = verdict.Verdict{Decision: verdict.Block, Stage: s.name, Rule: RuleInternalError,
				Reason: "internal error in the gate; blocked to fail closed"}, true
		}
	}()
	return s.run(g, st)
}

// stepNote says what a step that did not decide left for the next ones.
func stepNote(before, after *state) string {
	switch {
	case after.pending != nil && before.pending == nil:
		return fmt.Sprintf("escalates to tier %d: %s: %s", after.pending.Tier, after.pending.Rule, after.pending.Reason)
	case after.minTier > before.minTier:
		return fmt.Sprintf("needs tier %d: %s: %s", after.minTier, after.tierRule, after.tierReason)
	case after.pol.Effect != before.pol.Effect || after.pol.Rule != before.pol.Rule:
		if after.pol.Effect == policy.Allow {
			return "allowed by rule " + after.pol.Rule
		}
		return after.pol.Effect.String() + " " + after.pol.Rule
	case after.fast && !before.fast:
		return "known read-only command: later steps take the fast path"
	}
	return "no objection"
}
