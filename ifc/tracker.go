package ifc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// ContentClassifier classifies text (a tool result, an outbound body):
// the level of the most sensitive thing found and the labels of what was
// found (kinds such as "aws_access_key", never the values). The dlp
// package is adapted to it.
type ContentClassifier interface {
	Classify(text string) (Level, []string)
}

// EncodedClassifier is what a ContentClassifier may add: the level of
// what only decoding shows in text (a key in hex, base64 or base32, split
// by zero-width characters). Header values are judged by it: a header
// carries credentials in use, which the heuristics judge against their
// issuer, but an encoded secret in a header is data leaving.
type EncodedClassifier interface {
	ClassifyEncoded(text string) (Level, []string)
}

// Config sets up a Tracker.
type Config struct {
	Workspace string // absolute workspace root; shell commands run here
	Home      string // what ~ means
	// Policy maps level × sink to a decision; nil means the default preset.
	Policy *Policy
	// Store keeps the session taint and the activity table; nil means a
	// fresh MemoryStore (nothing survives the process).
	Store Store
	// Classifier classifies content; nil means content is not classified
	// (labels attached by executors still count).
	Classifier ContentClassifier
	// Now is the clock of activity entries (default time.Now).
	Now func() time.Time
}

// Tracker is information-flow control for one workspace: it judges
// actions against their sources and the session taint (Evaluate) and
// learns from what actions returned and wrote (Observe). It is safe for
// concurrent use.
type Tracker struct {
	ws, home string
	paths    *Paths
	policy   *Policy
	store    Store
	classify ContentClassifier
	now      func() time.Time
}

// New builds a tracker.
func New(cfg Config) (*Tracker, error) {
	paths, err := NewPaths(Env{Workspace: cfg.Workspace, Home: cfg.Home})
	if err != nil {
		return nil, fmt.Errorf("new ifc tracker: %w", err)
	}
	t := &Tracker{ws: paths.ws, home: paths.home, paths: paths, policy: cfg.Policy,
		store: cfg.Store, classify: cfg.Classifier, now: cfg.Now}
	if t.policy == nil {
		if t.policy, err = Preset("default"); err != nil {
			return nil, fmt.Errorf("new ifc tracker: %w", err)
		}
	}
	if t.store == nil {
		t.store = NewMemoryStore()
	}
	if t.now == nil {
		t.now = time.Now
	}
	return t, nil
}

// Policy returns the tracker's policy.
func (t *Tracker) Policy() *Policy { return t.policy }

// WithStore returns a tracker that judges like t but keeps its state in s.
func (t *Tracker) WithStore(s Store) *Tracker {
	c := *t
	c.store = s
	return &c
}

// Store returns the tracker's store.
func (t *Tracker) Store() Store { return t.store }

// Paths returns the tracker's path classifier.
func (t *Tracker) Paths() *Paths { return t.paths }

// Input is one action as the gate sees it.
type Input struct {
	// Session names the agent session; "" is no session: the action is
	// judged on its own, and what it shows the agent taints nothing.
	Session string
	Action  *action.Action // decoded and normalised (absolute paths)
	// Effects is the analysis of the action's shell code (execute_command,
	// create_schedule's command); nil makes the tracker analyse it.
	Effects *shell.Effects
	// Memo, when set, carries what Evaluate learned about this action to
	// Observe for the same action, so it is not computed twice. Use a
	// fresh Memo per action.
	Memo *Memo
	// Resolved are more paths the action touches: where its path fields
	// lead when that is elsewhere (symlinks resolved by the executor's
	// plan). They are read from and written to as the fields are.
	Resolved []action.PathField
}

// fieldsOf lists an action's path fields and the resolved ones.
func fieldsOf(a *action.Action, resolved []action.PathField) []action.PathField {
	fs := a.Payload.PathFields()
	if len(resolved) == 0 {
		return fs
	}
	return append(fs, resolved...)
}

// Memo is what Evaluate leaves for Observe about one action.
type Memo struct {
	flow     origin
	flowDone bool
}

// Result is the tracker's judgement of one action.
type Result struct {
	Decision verdict.Decision
	Rule     string // the policy rule, or RuleNoSink, RuleDefault, RuleMemoryBlock, RuleError
	Reason   string // names the sink, the level and the source (path or label), never data
	Sink     string // the sink that decided; "" when none
	Level    Level  // the level judged at that sink
	Source   string // what carried the level
	Tainted  bool   // the level came from the session taint, not from the action itself
}

// Evaluate judges the flows of one action: the level of what it carries
// (paths it reads, directories holding secrets, files labelled by the
// activity table, classified outbound text) and, at the policy's taint
// sinks, the session taint, against every sink it reaches. The most
// severe decision wins. On any error the Result is a BLOCK with rule
// RuleError, and the error is returned too.
func (t *Tracker) Evaluate(ctx context.Context, in Input) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("ifc evaluate: internal error: %v", p)
			res = failClosed(err)
		}
	}()
	res, err = t.evaluate(ctx, in)
	if err != nil {
		return failClosed(err), err
	}
	return res, nil
}

func failClosed(err error) Result {
	return Result{Decision: verdict.Block, Rule: RuleError,
		Reason: "ifc: cannot judge the data flow (" + err.Error() + "); blocked to fail closed"}
}

func (t *Tracker) evaluate(ctx context.Context, in Input) (Result, error) {
	if in.Action == nil || in.Action.Payload == nil {
		return Result{}, errors.New("ifc evaluate: no action")
	}
	eff := t.effects(in)
	sinks := t.sinksOf(in.Action, in.Resolved, eff)
	if sinks.empty() {
		return Result{Decision: verdict.Allow, Rule: RuleNoSink, Reason: "ifc: the action reaches no sink"}, nil
	}
	if sinks&^t.policy.flat == 0 {
		// Every sink allows every level: what the action carries does not
		// matter here (Observe still labels what it writes).
		return t.judge(sinks, origin{}, origin{kind: originTaint}), nil
	}
	src, err := t.memoFlow(ctx, in, eff)
	if err != nil {
		return Result{}, err
	}
	taint := origin{kind: originTaint}
	if sinks&t.policy.taintSinks != 0 && in.Session != "" {
		lvl, source, err := t.store.MaxTaint(ctx, in.Session)
		if err != nil {
			return Result{}, fmt.Errorf("read session taint: %w", err)
		}
		taint.level, taint.what = lvl.clamp(), source
	}
	return t.judge(sinks, src, taint), nil
}

// memoFlow is flowOrigin, computed once per Memo.
func (t *Tracker) memoFlow(ctx context.Context, in Input, eff *shell.Effects) (origin, error) {
	if in.Memo != nil && in.Memo.flowDone {
		return in.Memo.flow, nil
	}
	o, err := t.flowOrigin(ctx, in.Action, in.Resolved, eff)
	if err == nil && in.Memo != nil {
		in.Memo.flow, in.Memo.flowDone = o, true
	}
	return o, err
}

// judge picks the most severe outcome over the sinks; ties go to the
// higher level, then to the first sink.
func (t *Tracker) judge(sinks sinkSet, src, taint origin) Result {
	var best Result
	var bestOut Outcome
	found := false
	for s := Sink(0); s < sinkCount; s++ {
		if !sinks.has(s) {
			continue
		}
		o := src
		if t.policy.Tainted(s) && taint.level > o.level {
			o = taint
		}
		out := t.policy.Decide(o.level, s)
		if o.maybe && out.Decision == verdict.Block {
			// A pattern that may match a secret is not a secret: review.
			out.Decision = verdict.Escalate
			out.Reason = "the files it selects may include such data; " + out.Reason
		}
		sev, bestSev := out.Decision.Severity(), bestOut.Decision.Severity()
		if found && (sev < bestSev || sev == bestSev && o.level <= best.Level) {
			continue
		}
		found, bestOut = true, out
		best = Result{Decision: out.Decision, Rule: out.Rule, Sink: s.String(), Level: o.level,
			Source: o.describe(), Tainted: o.kind == originTaint}
	}
	best.Reason = reasonFor(best, bestOut)
	return best
}

// reasonFor writes the sentence the agent reads.
func reasonFor(r Result, out Outcome) string {
	why := out.Reason
	if why == "" {
		why = "rule " + out.Rule
	}
	what := r.Level.String() + " data"
	if r.Source != "" {
		what += " (" + r.Source + ")"
	}
	switch r.Decision {
	case verdict.Allow:
		return "ifc: " + what + " may reach " + r.Sink + " (" + why + ")"
	case verdict.Escalate:
		return "ifc: " + what + " reaching " + r.Sink + " needs review: " + why
	}
	return "ifc: " + what + " may not reach " + r.Sink + ": " + why
}

// effects returns the analysis of the action's shell code, if any.
func (t *Tracker) effects(in Input) *shell.Effects {
	if in.Effects != nil {
		return in.Effects
	}
	code := action.ShellCode(in.Action)
	if code == "" {
		return nil
	}
	return shell.Analyze(code, shell.Options{Cwd: t.ws, Home: t.home})
}
