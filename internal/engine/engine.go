package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/sessions"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of the engine's own decisions and failures. They are a
// public contract: audit entries, the agent's tool results and tests
// use them. The gate's codes (shield, policy, ifc, …) pass through.
const (
	RuleNoExecutor           = "no_executor"
	RuleEscalationUnanswered = "escalation_unanswered"
	RuleDecodeError          = "decode_error"
	RuleSnapshotFailed       = "chronicle_snapshot_failed"
	RulePrepareFailed        = "executor_prepare_failed"
	RuleHashMismatch         = "hash_mismatch"
	RulePathResolved         = shield.RulePathResolved
	RulePathChanged          = "path_changed"
	RuleProvisionFailed      = "executor_provision_failed"
	RuleValidateFailed       = "executor_validate_failed"
	RuleAuditError           = shield.RuleAuditError
	RuleExecutorError        = "executor_error"
	RuleExecutorPanic        = "executor_panic"
	RuleObserveError         = "result_observe_error"
	RuleResultWithheld       = "result_withheld"
	RuleInternalError        = "engine_internal_error"
)

// Detail codes of the engine's audit entries.
const (
	CodeSnapshotTaken   = "engine_pre_execute"
	CodeSnapshotFailure = "snapshot_failed"
	CodeStarted         = "execute_started"
	CodeExecuted        = "execute_done"
)

// StageEngine names the engine in verdicts it makes itself (after the
// gate decided).
const StageEngine verdict.Stage = "engine"

// Gate is the Shield the engine asks (*shield.Gate): Evaluate decides
// and audits a proposal; ObserveReport classifies what it returned.
type Gate interface {
	Evaluate(ctx context.Context, r shield.Request) verdict.Verdict
	ObserveReport(ctx context.Context, r shield.Request) (shield.Observation, error)
}

var _ Gate = (*shield.Gate)(nil)

// Call is one decided call as its executor gets it.
type Call struct {
	// Action is the action exactly as it was judged: decoded, normalised,
	// its hash (and its plan's) re-verified.
	Action *action.Action
	// Plan is what the executor's Prepare returned before the decision
	// (nil for an executor without one); the gate judged its paths.
	Plan Plan
	// Session and CallID name the session and the model's tool call.
	Session, CallID string
	// Verdict is the gate's ALLOW.
	Verdict verdict.Verdict
	// State is what Provision set up for this call (nil without one).
	State any
	// Env is the environment the gate judged the command with
	// (CommandEnver; nil for other executors): the executor must run it
	// with exactly these values.
	Env map[string]string
}

// Executor runs one kind of action (internal/tools/<group>) and returns
// what the agent reads; an error is a failure the agent is told about.
//
// The pipeline drives an executor's optional steps in this one order:
// Prepare (before the gate: the plan the gate judges) → the gate →
// Chronicle snapshot → Prepare again (the new plan must hash as the
// decided one) → Validate → Provision → ActionStarted audit entry →
// Execute → Cleanup (always, once Provision succeeded) → classification
// → ActionExecuted or ActionFailed entry. A failure before Execute is a
// refused call; nothing ran.
type Executor interface {
	Execute(ctx context.Context, c Call) (Result, error)
}

// Plan is what a call will touch, fixed before the decision: its paths
// as they resolve now, with the identity of what is there. The gate
// judges them and the verdict's hash covers them (shield.PlanHash).
type Plan interface {
	Paths() []shield.ResolvedPath
}

// Preparer is implemented by executors that resolve what they will touch
// before the gate decides (symlinks, identities to pin).
type Preparer interface {
	Prepare(ctx context.Context, act *action.Action) (Plan, error)
}

// CommandEnver is implemented by executors that run shell commands with
// an environment they can name before the decision (shield.EnvNames):
// the gate judges $TMPDIR, $PATH and mktemp's names with it, and the
// executor refuses to run a command whose environment differs.
type CommandEnver interface {
	CommandEnv() map[string]string
}

// Validator checks a decided call once more just before it is
// provisioned; an error refuses it.
type Validator interface {
	Validate(ctx context.Context, c Call) error
}

// Provisioner sets up what one call needs (its sandbox) after the
// decision; the state it returns reaches Execute and Cleanup as
// Call.State. An error refuses the call; a Provisioner must release
// what it made before returning one.
type Provisioner interface {
	Provision(ctx context.Context, c Call) (any, error)
}

// Cleaner releases what Provision set up, once, whatever the call's end
// (an executor error, a panic); it may add notes to the result.
type Cleaner interface {
	Cleanup(ctx context.Context, c Call, res *Result)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, c Call) (Result, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, c Call) (Result, error) {
	return f(ctx, c)
}

// Result is what an action returned, as the agent reads it.
type Result struct {
	Output   string
	IsError  bool
	ExitCode int
	// Redacted are the DLP scanners whose findings were masked in Output;
	// Injection the injection rules the raw result matched.
	Redacted  []string
	Injection []string
	// Effects, when EffectsKnown, are what the call did that no Chronicle
	// snapshot covers, as its executor knows them exactly (a command's
	// sandbox: the granted paths outside the workspace it changed, the
	// hosts its egress proxy let it reach); otherwise the pipeline takes
	// the paths its snapshot skipped. Never shown to the agent.
	Effects      []sessions.Effect
	EffectsKnown bool
}

// Config is a Pipeline's parts.
type Config struct {
	// Workspace and Home are absolute: the workspace the gate protects
	// and what ~ means (as the gate was built).
	Workspace, Home string
	// Gate decides every proposal and classifies every result.
	Gate Gate
	// Audit is the chain the engine's own entries go to (the gate's).
	Audit shield.Appender
	// Snapshots takes Chronicle snapshots before changes; nil refuses
	// every action that may change files (chronicle_snapshot_failed).
	Snapshots Snapshotter
	// Executors run the allowed actions, by type; a type without one is
	// refused before the gate is asked (no_executor).
	Executors map[action.Type]Executor
	// Redact masks DLP findings in results before the agent reads them;
	// findings whose action is Block withhold the whole result.
	Redact bool
	// DLP is the detector for redaction (nil: the shipped scanners).
	DLP *dlp.Detector
	// Now is the clock of the audit durations (default time.Now).
	Now func() time.Time
	// Logger receives what could not be audited (never content).
	Logger *slog.Logger
}

// Pipeline runs proposals through decode → gate → snapshot → audit →
// execute → classify → audit → answer. It is safe for concurrent use.
type Pipeline struct {
	cfg Config
	dlp *dlp.Detector
	log *slog.Logger
}

// New checks cfg and returns its pipeline.
func New(cfg Config) (*Pipeline, error) {
	if !filepath.IsAbs(cfg.Workspace) || !filepath.IsAbs(cfg.Home) {
		return nil, fmt.Errorf("engine: workspace %q and home %q must be absolute", cfg.Workspace, cfg.Home)
	}
	if cfg.Gate == nil || cfg.Audit == nil {
		return nil, errors.New("engine: a gate and an audit chain are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p := &Pipeline{cfg: cfg, dlp: cfg.DLP, log: cfg.Logger}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.dlp == nil {
		d, err := dlp.New()
		if err != nil {
			return nil, fmt.Errorf("engine: dlp: %w", err)
		}
		p.dlp = d
	}
	return p, nil
}

// Proposal is one tool call the agent proposes.
type Proposal struct {
	Session string
	CallID  string
	Type    string
	Payload json.RawMessage
}

// Outcome is what became of a proposal.
type Outcome struct {
	// Verdict is the decision: the gate's, or the engine's BLOCK when a
	// later step refused (its Rule says which).
	Verdict verdict.Verdict
	// Result is what the agent reads: the tool's answer (masked as
	// configured) or the refusal.
	Result Result
	// Executed reports whether the executor was entered.
	Executed bool
	// Audited reports whether every entry of the call reached the chain.
	Audited bool
	// Snapshot is the Chronicle snapshot taken before it ran (0: none).
	Snapshot int64
	// Effects are what the call did that no snapshot covers (/undo names
	// them as not restored): masked and bounded, once each.
	Effects []sessions.Effect
}
