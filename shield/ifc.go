package shield

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Information-flow control as a stage of the gate, and what the gate
// learns from actions that ran (session taint, the activity table).

// RuleIFCObserve is the reason code of a block when what an action reads
// could not be recorded: later actions would be judged without it.
const RuleIFCObserve = "ifc_observe_error"

// newTracker builds the gate's IFC tracker from its configuration.
func newTracker(cfg Config, ws, home string) (*ifc.Tracker, error) {
	spec := cfg.IFCPolicy
	if spec == "" {
		spec = "default"
		if isPreset(cfg.Policy) {
			spec = cfg.Policy // --policy strict means strict flows too
		}
	}
	pol, err := ifc.Resolve(spec)
	if err != nil {
		return nil, err
	}
	return ifc.New(ifc.Config{Workspace: ws, Home: home, Policy: pol, Store: cfg.Store,
		Classifier: cfg.Classifier, Now: cfg.Now})
}

// flows is the IFC stage: the level of what the action carries, and the
// session's taint, against the sinks it reaches.
func (g *Gate) flows(st *state) (verdict.Verdict, bool) {
	res, err := g.ifc.Evaluate(st.ctx, ifc.Input{Session: st.req.Session, Action: st.act, Effects: st.effects,
		Memo: &st.ifcMemo, Resolved: st.resolved})
	if err != nil && res.Decision != verdict.Block {
		return block(verdict.StageIFC, 1, ifc.RuleError, "ifc: "+err.Error()+"; blocked to fail closed")
	}
	switch res.Decision {
	case verdict.Allow:
	case verdict.Escalate:
		st.escalate(verdict.StageIFC, 2, res.Rule, res.Reason)
	default:
		return block(verdict.StageIFC, 1, res.Rule, res.Reason)
	}
	return verdict.Verdict{}, false
}

// tainted reports whether the session has seen data above Internal (the
// fast path is then closed: it does not judge flows). An error counts as
// tainted.
func (g *Gate) tainted(ctx context.Context, session string) bool {
	if session == "" {
		return false
	}
	lvl, _, err := g.ifc.Store().MaxTaint(ctx, session)
	return err != nil || lvl > ifc.Internal
}

// observe records what an action that may run showed the agent and wrote
// (its reads, its result). A verdict that lets the action run is turned
// into a BLOCK when this fails: the session would be judged without it.
func (g *Gate) observe(st *state, v verdict.Verdict) verdict.Verdict {
	if st.act == nil || v.Decision == verdict.Block && st.req.Result == "" {
		return v
	}
	ctx := st.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	in := ifc.Input{Session: st.req.Session, Action: st.act, Effects: st.effects, Memo: &st.ifcMemo, Resolved: st.resolved}
	err := g.ifc.Observe(ctx, in, ifc.Output{Text: st.req.Result})
	if err == nil {
		err = g.raiseInjection(ctx, st.req.Session, string(st.act.Type), scanResult(st.req.Result))
	}
	if err != nil {
		// What the agent saw is unknown: the session is judged as critical.
		if terr := g.raiseFirst(ctx, st.req.Session, ifc.Critical, SourceUnrecorded); terr != nil {
			err = errors.Join(err, terr)
		}
		return observeFailed(v, err)
	}
	return v
}

func observeFailed(v verdict.Verdict, err error) verdict.Verdict {
	if v.Decision == verdict.Block {
		return v
	}
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageIFC, Tier: 1, Rule: RuleIFCObserve,
		Reason: "cannot record what the action reads (" + err.Error() + "); blocked to fail closed", Hash: v.Hash}
}

// Observe records what an action that already ran returned (a hook's
// PostToolUse, the HTTP API's /v1/observe): the result is classified and
// taints the session, and files the action wrote are labelled. It judges
// nothing. With an audit chain, an IFCClassified entry is appended. A
// request that does not decode is an error: nothing is learned from it.
//
// The session's taint is raised first (the classified result's level),
// before the sub-agent link, the labels and the audit entry: the smallest
// write, and the one that must not be lost. When anything fails, the
// session is raised to critical (what it saw is unknown); when the store
// cannot even write that, the taint is kept in the process-wide
// unrecorded set and every later Evaluate in the workspace is refused
// until a retry lands (see unrecorded).
func (g *Gate) Observe(ctx context.Context, r Request) error {
	_, err := g.ObserveReport(ctx, r)
	return err
}

// ObserveReport is Observe, and says what it learned: the result's level
// and labels, the injection rules it matches (an injection raises the
// session to InjectionLevel and is audited as CodeResultInjection).
func (g *Gate) ObserveReport(ctx context.Context, r Request) (obs Observation, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("observe %s: internal error", r.Type)
		}
		if err != nil {
			if terr := g.raiseFirst(ctx, r.Session, ifc.Critical, SourceUnrecorded); terr != nil {
				err = errors.Join(err, fmt.Errorf("observe: raise taint to critical: %w", terr))
			}
		}
	}()
	// The result is classified once, here: the tracker gets the level and
	// labels (as an executor's content tags), the audit entry names them.
	lvl, labels := ifc.Public, []string(nil)
	if g.classify != nil && r.Result != "" {
		lvl, labels = g.classify.Classify(r.Result)
	}
	a, err := action.Decode(r.Type, r.Payload)
	if err != nil {
		return obs, fmt.Errorf("observe: %w", err)
	}
	if err := action.Normalize(a, action.Env{Home: g.home}); err != nil {
		return obs, fmt.Errorf("observe: %w", err)
	}
	if err := g.raiseFirst(ctx, r.Session, lvl, resultSource(string(a.Type), labels)); err != nil {
		return obs, fmt.Errorf("observe: raise taint: %w", err)
	}
	obs = Observation{Level: lvl, Labels: labels, Injection: scanResult(r.Result), Taint: lvl}
	if len(obs.Injection) > 0 {
		obs.Taint = max(lvl, InjectionLevel)
		if err := g.raiseInjection(ctx, r.Session, string(a.Type), obs.Injection); err != nil {
			return obs, fmt.Errorf("observe: raise taint: %w", err)
		}
	}
	var eff *shell.Effects
	if code := action.ShellCode(a); code != "" {
		eff = shell.Analyze(code, g.shellOptions(&r))
	}
	if r.Parent != "" {
		if err := g.ifc.Spawn(ctx, r.Parent, r.Session); err != nil {
			return obs, fmt.Errorf("observe: %w", err)
		}
	}
	in := ifc.Input{Session: r.Session, Action: a, Effects: eff, Resolved: elsewhere(r.Resolved)}
	if err := g.ifc.Observe(ctx, in, ifc.Output{Level: lvl, Labels: labels}); err != nil {
		return obs, fmt.Errorf("observe: %w", err)
	}
	if g.audit == nil {
		return obs, nil
	}
	hash, _ := action.Hash(a)
	e := audit.Event{Type: audit.IFCClassified, Session: r.Session, ActionType: r.Type, ActionHash: hash,
		Detail: audit.Detail{Code: "result_" + lvl.String(), Labels: labels}}
	if len(obs.Injection) > 0 {
		e.Detail = audit.Detail{Code: CodeResultInjection, Labels: append(slices.Clone(labels), obs.Injection...),
			Message: "the result reads as instructions to the agent; session raised to " + obs.Taint.String()}
	}
	if _, err := g.audit.Append(context.WithoutCancel(orBackground(ctx)), e); err != nil {
		return obs, fmt.Errorf("observe: audit: %w", err)
	}
	return obs, nil
}

// resultSource names a classified result as the tracker does (labels are
// kinds, never data).
func resultSource(typ string, labels []string) string {
	s := "result of " + typ
	if len(labels) > 0 {
		s += " labelled " + strings.Join(labels, ", ")
	}
	return s
}
