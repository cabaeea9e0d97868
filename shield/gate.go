package shield

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/heuristic"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/policy"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of the gate itself (stage-specific codes come from the
// stages' packages). They are a public contract.
const (
	RuleDecodeError   = "decode_error"
	RuleBadPath       = "bad_path"
	RuleInternalError = "internal_error"
	RuleFastPath      = "fastpath_safe_command"
	RuleNoPolicyMatch = "policy_no_match"
	RuleNeedsJudge    = "judge_unavailable"
	RuleRoutine       = "effects_routine"
)

// maxReason bounds the length of a reason.
const maxReason = 400

// Config says where the gate works and with which policy.
type Config struct {
	Workspace string // absolute workspace root; shell commands run here
	Home      string // what ~ means
	// Policy is a preset name (default, permissive, strict) or a policy
	// file. Empty means "default". User rules in
	// Workspace/.parallax/policy.yaml and Home/.parallax/policy.yaml are
	// layered on top when present.
	Policy string
	// IFCPolicy is the information-flow preset or file; empty means the
	// preset named by Policy when it is one, else "default".
	IFCPolicy string
	// Store keeps session taint and the activity table; nil keeps them in
	// memory for the life of the gate.
	Store ifc.Store
	// Classifier classifies tool results and outbound text; nil means the
	// DLP detector with its shipped scanners.
	Classifier ifc.ContentClassifier
	// Audit receives every decision before Evaluate returns; nil records
	// nothing. A decision that cannot be recorded is a BLOCK.
	Audit Appender
	// Judge is tier 2 (*judge.Judge); nil leaves escalations ESCALATE.
	Judge Judge
	// Supervisor (*judge.Judge with judge.SupervisorProfile) sees every
	// allowed access to sensitive data classes (memory, screen,
	// clipboard, files labelled restricted or above); nil: none.
	Supervisor Judge
	// Approver is tier 3 (*approval.Broker): what is still ESCALATE is
	// asked of a human; nil reports it as ESCALATE.
	Approver Approver
	// Now is the clock used for the ns field (default time.Now).
	Now func() time.Time
	// Protected are more paths the guard protects against writes and
	// deletes (guard.WithProtected): clean and absolute, or every path
	// is blocked.
	Protected []string
	// InternalsHidden says that what the gate allows runs where the
	// workspace's .parallax is hidden (the own agent's per-command
	// sandbox shows it as an empty directory). Only the own agent's
	// sandboxed engine sets it. Unset (the hook, the MCP proxy, the HTTP
	// API, shield evaluate: an ALLOW runs with the user's full rights),
	// a recursive operation is judged by what it reaches there
	// (guard.CheckInternals): fail closed.
	InternalsHidden bool
	// WalksJudged says that the typed walks the gate allows (search_files,
	// list_directory) run in an executor that asks the guard about every
	// entry and skips what it blocks (internal/tools/files, Config.Judge):
	// the engine's own. Unset (the Claude Code Grep and Glob tools run by
	// the host), a search is judged by what it reaches in .parallax.
	WalksJudged bool
}

// Gate evaluates actions. It is safe for concurrent use.
type Gate struct {
	ws, home   string
	policy     *policy.Policy
	guard      *guard.Guard
	now        func() time.Time
	stages     []stage
	sub        []stage // the stages code in runnable files goes through (subPipeline)
	prov       *provenance
	written    *writtenFiles
	ifc        *ifc.Tracker
	audit      Appender
	classify   ifc.ContentClassifier
	tier2      Judge
	approver   Approver
	supervisor Judge
	// unrecorded are the taints the store could not write (shared by the
	// gates of the workspace in this process).
	unrecorded *unrecorded
	// walksJudged: Config.WalksJudged.
	walksJudged bool
}

// Judge decides what the deterministic tiers escalated (*judge.Judge).
type Judge interface {
	Evaluate(ctx context.Context, in verdict.JudgeInput) verdict.Verdict
}

// New builds a gate. It fails when the workspace or home is not absolute
// or the policy does not load.
func New(cfg Config) (*Gate, error) {
	if !filepath.IsAbs(cfg.Workspace) {
		return nil, fmt.Errorf("workspace %q must be an absolute path", cfg.Workspace)
	}
	if !filepath.IsAbs(cfg.Home) {
		return nil, fmt.Errorf("home %q must be an absolute path", cfg.Home)
	}
	ws, home := filepath.Clean(cfg.Workspace), filepath.Clean(cfg.Home)
	pol, err := loadPolicy(cfg.Policy, policy.Vars{Workspace: ws, Home: home})
	if err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.Classifier == nil {
		if cfg.Classifier, err = defaultClassifier(); err != nil {
			return nil, fmt.Errorf("load dlp: %w", err)
		}
	}
	tr, err := newTracker(cfg, ws, home)
	if err != nil {
		return nil, fmt.Errorf("load ifc policy: %w", err)
	}
	gopts := []guard.Option{guard.WithProtected(cfg.Protected...)}
	if cfg.InternalsHidden {
		gopts = append(gopts, guard.WithInternalsHidden())
	}
	g := &Gate{ws: ws, home: home, policy: pol, guard: guard.New(ws, home, gopts...),
		now: now, prov: newProvenance(), written: newWrittenFiles(), ifc: tr,
		audit: cfg.Audit, classify: cfg.Classifier, tier2: cfg.Judge,
		approver: cfg.Approver, supervisor: cfg.Supervisor, unrecorded: unrecordedFor(ws), walksJudged: cfg.WalksJudged}
	g.stages, g.sub = pipeline, subPipeline
	return g, nil
}

// loadPolicy resolves a preset or file and layers the user rule files.
func loadPolicy(name string, v policy.Vars) (*policy.Policy, error) {
	if name == "" {
		name = "default"
	}
	var base *policy.Policy
	var err error
	if isPreset(name) {
		base, err = policy.Preset(name, v)
	} else {
		base, err = policy.Load(name, v)
	}
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", name, err)
	}
	var user []*policy.Policy
	for _, f := range []string{
		filepath.Join(v.Workspace, ".parallax", "policy.yaml"),
		filepath.Join(v.Home, ".parallax", "policy.yaml"),
	} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		p, err := policy.Load(f, v)
		if err != nil {
			return nil, fmt.Errorf("load user policy: %w", err)
		}
		user = append(user, p)
	}
	if len(user) > 0 {
		base = base.With(user...)
	}
	return base, nil
}

func isPreset(name string) bool {
	for _, p := range policy.PresetNames() {
		if p == name {
			return true
		}
	}
	return false
}

// Evaluate judges one request. It never panics and never allows on error.
func (g *Gate) Evaluate(ctx context.Context, r Request) (v verdict.Verdict) {
	start := g.now()
	// One object for the request, the state and its first paths, reused
	// once the decision is made.
	st := statePool.Get().(*state)
	st.ctx, st.reqv = ctx, r
	st.req, st.paths = &st.reqv, st.pathBuf[:0]
	defer func() {
		if p := recover(); p != nil {
			v = verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageVerify,
				Rule: RuleInternalError, Reason: "internal error in the gate; blocked to fail closed"}
		}
		v.Reason = clip(v.Reason)
		v = g.recordSafely(ctx, st.req, v)
		st.release()
		v.NS = g.now().Sub(start).Nanoseconds()
	}()
	if out, refused := g.checkUnrecorded(ctx); refused {
		return out
	}
	if r.Parent != "" {
		// A sub-agent is linked before its first action is judged: it
		// starts with what its parent has seen.
		if err := g.ifc.Spawn(ctx, r.Parent, r.Session); err != nil {
			return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageIFC, Rule: RuleIFCObserve,
				Reason: "cannot link session " + r.Session + " to its parent: " + err.Error()}
		}
	}
	for _, s := range g.stages {
		if err := ctx.Err(); err != nil {
			return verdict.Verdict{Decision: verdict.Block, Stage: s.name, Rule: RuleInternalError,
				Reason: "evaluation cancelled: " + err.Error(), Hash: st.hash}
		}
		if out, done := s.run(g, st); done {
			out.Hash = st.hash
			out = g.supervise(st, out)
			out = g.human(st, out)
			if out.Decision != verdict.Block && st.act != nil {
				// It may run: what it downloads is remembered for the session.
				g.prov.record(r.Session, downloads(st.act, st.effects))
			}
			out = g.noteRunfiles(st, out)
			return g.observe(st, out)
		}
	}
	// No stage may fall through: the last stage always decides.
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageJudge,
		Rule: RuleInternalError, Reason: "no stage decided; blocked to fail closed", Hash: st.hash}
}

// Fresh returns a gate that judges like g (same tables, policies and
// classifier) with no session memory: no taint, no activity table, no
// downloads. Runs whose cases must not influence each other use one per
// case.
func (g *Gate) Fresh() *Gate {
	c := *g
	c.prov = newProvenance()
	c.written = newWrittenFiles()
	c.ifc = g.ifc.WithStore(ifc.NewMemoryStore())
	c.unrecorded = &unrecorded{m: map[string]ifc.Level{}}
	return &c
}

// Policy returns the compiled policy the gate uses.
func (g *Gate) Policy() *policy.Policy { return g.policy }

// Guard returns the guard the gate judges paths with. It keeps no state
// and is safe for concurrent use: executors ask it about what they meet
// after the decision (the entries of a directory walk).
func (g *Gate) Guard() *guard.Guard { return g.guard }

func clip(s string) string {
	if len(s) <= maxReason {
		return s
	}
	return s[:maxReason-3] + "..."
}

// statePool keeps the states of finished decisions. Nothing may keep a
// pointer into a state past its decision: what leaves a decision (the
// verdict, audit events, escalations, the session's taint and downloads)
// holds strings and separately allocated objects (the action, the
// effects), never the state's own fields or its path buffer.
var statePool = sync.Pool{New: func() any { return new(state) }}

// release ends a decision: its guard memo and the state go back for reuse,
// emptied.
func (st *state) release() {
	if st.guard != nil {
		st.guard.Release()
	}
	*st = state{}
	statePool.Put(st)
}

// state is what the stages learn about one request as it moves on.
type state struct {
	reqv    Request
	pathBuf [8]policy.PathRef
	hin     heuristic.Input
	req     *Request
	ctx     context.Context
	act     *action.Action
	hash    string
	effects *shell.Effects
	guard   *guard.Guard // the gate's guard with a filesystem memo for this decision
	ifcMemo ifc.Memo     // what the IFC stage computed, for observe
	paths   []policy.PathRef
	// resolved are the plan's paths that lead elsewhere than named, for
	// the information-flow stage.
	resolved []action.PathField
	hosts    []string
	fast     bool
	minTier  int
	// tierRule and tierReason say who raised minTier.
	tierRule, tierReason string
	pol                  policy.Result
	pending              *verdict.Verdict // an escalation waiting for the judge
	// nest is how deep inside runnable files this state judges code (0:
	// the request itself).
	nest int
	// runContent is what a write of a runnable file puts there.
	runContent   string
	runContentOK bool
	// runTexts is what a command writes to runnable files, by path, when
	// the analysis knows it (the file as it will be).
	runTexts map[string]string
}
