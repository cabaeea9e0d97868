package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Permission decisions a PreToolUse hook returns. No decision at all
// ("") leaves the call to the host's own permission rules.
const (
	DecisionDeny = "deny"
	DecisionAsk  = "ask"
	// PermissionBypass is the permission mode in which Claude Code grants
	// what a hook asks about without asking anyone: an ask is a deny
	// there.
	PermissionBypass = "bypassPermissions"
)

// stageHook names the hook's own decisions in the audit chain.
const stageHook = "hook"

// maxReasonBytes bounds a reason the hook writes.
const maxReasonBytes = 1000

// Options configure the hook.
type Options struct {
	// Home decides what ~ means ($HOME); it must be absolute.
	Home string
	// ProjectDir is $CLAUDE_PROJECT_DIR when set: the workspace is looked
	// for at or above it first, then at or above the input's cwd.
	ProjectDir string
	// Chronicle configures the snapshots taken before writes (zero value:
	// Chronicle's defaults).
	Chronicle chronicle.Options

	// fault is a test seam: when set (only by this package's tests), it
	// is called at the named points of a call (faultPre, faultPost,
	// faultObserve, faultChannel) and may panic there, to hold the
	// recover branches.
	fault func(point string)
	// managed is a test seam: the managed memory directory
	// (defaultManagedDir when empty).
	managed string
}

// Points of a call where Options.fault is called.
const (
	faultPre     = "pre"     // PreToolUse, the workspace open
	faultPost    = "post"    // PostToolUse, before the workspace is opened
	faultObserve = "observe" // PostToolUse, while the result is classified
	faultChannel = "channel" // an event without a tool call, once its workspace is found
)

// at calls the test seam, if any.
func (o Options) at(point string) {
	if o.fault != nil {
		o.fault(point)
	}
}

// Outcome is what PreToolUse decided.
type Outcome struct {
	// Decision is "", DecisionDeny or DecisionAsk.
	Decision string
	Reason   string
	// Verdict is the gate's verdict when the gate ran (Gated).
	Verdict verdict.Verdict
	Gated   bool
	// Snapshot is the Chronicle snapshot taken before the call (0: none).
	Snapshot int64
}

// Response is the JSON a PreToolUse hook writes to stdout.
type Response struct {
	HookSpecificOutput SpecificOutput `json:"hookSpecificOutput"`
}

// SpecificOutput is Claude Code's hookSpecificOutput for PreToolUse.
type SpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// JSON is the stdout of the hook: nil when there is no decision.
func (o Outcome) JSON() []byte {
	if o.Decision == "" {
		return nil
	}
	b, _ := json.Marshal(Response{SpecificOutput{EventPreToolUse, o.Decision, o.Reason}}) // strings always marshal
	return append(b, '\n')
}

// Run answers one hook call: it reads the input from stdin and, for
// PreToolUse, writes the decision to stdout. A non-nil error means the
// caller must print it on stderr and exit with status 2, Claude Code's
// blocking status: a PreToolUse call is then refused, and for the events
// after a call Claude is shown the message. Input that cannot be read is
// such an error, whatever the event, and so is an event this hook does not
// answer (it names the event).
func Run(ctx context.Context, opts Options, stdin io.Reader, stdout io.Writer) error {
	raw, err := readInput(stdin)
	var in *Input
	if err == nil {
		in, err = ParseInput(raw)
	}
	if errors.Is(err, ErrUnknownEvent) {
		return fmt.Errorf("%w; nothing was judged or recorded", err)
	}
	if err != nil {
		return badInput(ctx, opts, raw, err)
	}
	switch in.HookEventName {
	case EventPreToolUse:
		out := PreToolUse(ctx, opts, in)
		if b := out.JSON(); b != nil {
			if _, err := stdout.Write(b); err != nil {
				return fmt.Errorf("write the decision: %w; the tool call is refused to fail closed", err)
			}
		}
		return nil
	case EventPreSkillShellCommand:
		return preSkillShellCommand(ctx, opts, in)
	case EventPostToolUse, EventPostToolUseFailure:
		return postAnswer(stdout, PostToolUse(ctx, opts, in))
	case EventPostToolBatch:
		return postAnswer(stdout, postToolBatch(ctx, opts, in))
	case EventSessionStart, EventInstructionsLoaded, EventDirectoryAdded, EventUserPromptSubmit,
		EventUserPromptExpansion:
		return postAnswer(stdout, observeChannel(ctx, opts, in))
	}
	// ParseInput lets through only the events above.
	return fmt.Errorf("%w: hook event %s is not handled; nothing was judged", ErrUnknownEvent,
		quoteName(in.HookEventName))
}

// preSkillShellCommand judges a shell line a skill runs itself as the
// tool call it is (Bash). Claude Code takes a blocking error (exit status
// 2) as the refusal of such a line, and has no prompt for it: what the
// gate would ask a human about is refused too, saying so.
func preSkillShellCommand(ctx context.Context, opts Options, in *Input) error {
	out := PreToolUse(ctx, opts, in)
	switch out.Decision {
	case "":
		return nil
	case DecisionAsk:
		return errors.New(clip(out.Reason + " — a skill's own shell line cannot be asked about, so it is refused; " +
			"run the command yourself if you want it"))
	}
	return errors.New(out.Reason)
}

// PreToolUse judges one tool call. BLOCK is a deny with the reason,
// ESCALATE is ask (the host's prompt is the human tier), ALLOW is no
// decision, so the host's own rules still apply. Before a call that may
// run changes files, Chronicle snapshots them; if it cannot, the call is
// denied. Every error is a deny with a reason.
func PreToolUse(ctx context.Context, opts Options, in *Input) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = deny("internal error in the Parallax hook; the call is refused to fail closed")
		}
	}()
	ws, err := openWorkspace(ctx, opts, in)
	if err != nil {
		return deny(err.Error())
	}
	out = (&pre{opts: opts, in: in, ws: ws}).decide(ctx)
	if err := ws.Close(); err != nil && out.Decision == "" {
		return deny("close the Parallax workspace: " + err.Error())
	}
	return out
}

// openWorkspace finds and opens the workspace of a hook call.
func openWorkspace(ctx context.Context, opts Options, in *Input) (*workspace.Workspace, error) {
	root, err := hookRoot(opts, in)
	if err != nil {
		return nil, err
	}
	return openRoot(ctx, root)
}

// hookRoot finds the workspace of a hook call without opening it.
func hookRoot(opts Options, in *Input) (string, error) {
	if !filepath.IsAbs(opts.Home) {
		return "", errors.New("HOME is not set to an absolute path (it decides what ~ means)")
	}
	if opts.ProjectDir != "" && !filepath.IsAbs(opts.ProjectDir) {
		return "", fmt.Errorf("CLAUDE_PROJECT_DIR %q is not an absolute path", opts.ProjectDir)
	}
	return FindWorkspace(opts.ProjectDir, in.Cwd)
}

// openRoot opens the workspace at root for a hook call.
func openRoot(ctx context.Context, root string) (*workspace.Workspace, error) {
	ws, err := workspace.Open(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the Parallax workspace (%w); run `parallax doctor` there", err)
	}
	return ws, nil
}

// pre is one PreToolUse call on an open workspace.
type pre struct {
	opts Options
	in   *Input
	ws   *workspace.Workspace
}

func (p *pre) decide(ctx context.Context) Outcome {
	p.opts.at(faultPre)
	m, err := Map(p.in, Env{Home: p.opts.Home, Workspace: p.ws.Root})
	if err != nil {
		return p.refuse(ctx, RuleBadInput, "cannot read the "+p.in.ToolName+" call: "+err.Error())
	}
	if m.Internal {
		return p.leaveToHost(ctx, m)
	}
	gate, err := shield.New(p.ws.GateConfig(p.opts.Home))
	if err != nil {
		return p.refuse(ctx, RuleGateError, "cannot build the gate: "+err.Error())
	}
	v := gate.Evaluate(ctx, shield.Request{Session: p.in.SessionID, Type: string(m.Type), Payload: m.Payload})
	out := Outcome{Verdict: v, Gated: true}
	// What the gate says of a tool it could only partly judge is not the
	// whole story: an unknown tool is not "external communication" because
	// it is gated as an MCP call. Only a BLOCK (something concrete found)
	// stands as it is.
	if v.Decision == verdict.Allow && len(m.Unknown) > 0 || v.Decision != verdict.Block && m.Generic {
		if v, err = p.escalateUnknown(ctx, &m, v); err != nil {
			return deny("cannot audit the escalation: " + err.Error())
		}
	}
	switch v.Decision {
	case verdict.Allow:
	case verdict.Escalate:
		out.Decision, out.Reason = DecisionAsk, reasonOf(v)
		if p.in.PermissionMode == PermissionBypass {
			// Claude Code grants a hook's ask unseen in this mode (writes
			// under .claude/ included): nobody would review it.
			out.Decision = DecisionDeny
			out.Reason = clip(out.Reason + "; this needs a person's review, and the session bypasses permission " +
				"prompts (bypassPermissions), where Claude Code would grant the ask unseen, so it is refused")
			return out
		}
	default:
		out.Decision, out.Reason = DecisionDeny, reasonOf(v)
		if m.Generic {
			// Say what the verdict's "mcp" stands for.
			out.Reason = clip(out.Reason + " (" + genericNote(&m) + ", so it was judged as an MCP call)")
		}
		return out
	}
	if m.Tool == "Monitor" {
		// Its output reaches the model with no PostToolUse: the session
		// is tainted to what it may show before it may run.
		if err := p.monitorTaint(ctx, &m); err != nil {
			return deny(err.Error())
		}
	}
	// The call may run (now, or once the human says yes): snapshot first.
	id, err := p.snapshot(ctx, &m, v)
	if err != nil {
		return deny(err.Error())
	}
	out.Snapshot = id
	return out
}

// refuse audits and denies a call the gate could not judge.
func (p *pre) refuse(ctx context.Context, rule, reason string) Outcome {
	reason = clip(reason)
	_, _ = p.ws.Audit.Append(ctx, audit.Event{Type: audit.ActionBlocked, Session: p.in.SessionID,
		ActionType: actionLabel(p.in.ToolName), Decision: verdict.Block.String(), Stage: stageHook,
		Rule: rule, Reason: reason}) // denied whether or not the entry lands
	return deny(reason)
}

// leaveToHost audits a host-internal tool and leaves it to the host.
func (p *pre) leaveToHost(ctx context.Context, m Mapped) Outcome {
	reason := "Claude Code's own " + m.Tool + " tool " + m.What + "; left to the host's permission rules"
	if _, err := p.ws.Audit.Append(ctx, audit.Event{Type: audit.ActionEvaluated, Session: p.in.SessionID,
		ActionType: actionLabel(m.Tool), Decision: verdict.Allow.String(), Stage: stageHook,
		Rule: RuleHostInternal, Reason: reason}); err != nil {
		return deny("cannot audit the " + m.Tool + " call: " + err.Error())
	}
	return Outcome{}
}

// escalateUnknown turns the gate's ALLOW of a call it could only partly
// judge (unknown fields), or its ALLOW or ESCALATE of a tool it does not
// know, into an audited ESCALATE that says so.
func (p *pre) escalateUnknown(ctx context.Context, m *Mapped, v verdict.Verdict) (verdict.Verdict, error) {
	rule, reason := RuleUnknownInput, "Parallax does not know "+fieldList(m.Unknown)+" of the "+m.Tool+
		" tool; what it does know is allowed, a human must decide the rest"
	switch {
	case m.Generic && m.What != "":
		rule, reason = RuleUnknownTool, genericNote(m)+"; Parallax cannot judge that, a human must decide"
	case m.Generic:
		rule, reason = RuleUnknownTool, genericNote(m)+"; a human must decide"
	}
	out := verdict.Verdict{Decision: verdict.Escalate, Stage: stageHook, Tier: 3, Rule: rule, Reason: reason,
		Hash: v.Hash}
	_, err := p.ws.Audit.Append(ctx, audit.FromVerdict(audit.ActionEscalated, p.in.SessionID, string(m.Type), out))
	return out, err
}

// genericNote says what a tool gated as an mcp_call is.
func genericNote(m *Mapped) string {
	if m.What != "" {
		return "Claude Code's " + quoteName(m.Tool) + " tool " + m.What
	}
	return "Parallax does not know the tool " + quoteName(m.Tool)
}

// snapshot takes the Chronicle snapshot of what the call changes. Any
// failure is audited and returned: the call must not run.
func (p *pre) snapshot(ctx context.Context, m *Mapped, v verdict.Verdict) (int64, error) {
	targets := m.Targets(p.opts.Home)
	if len(targets) == 0 {
		return 0, nil
	}
	ev := audit.Event{Session: p.in.SessionID, ActionType: string(m.Type), ActionHash: v.Hash}
	paths, skipped, err := plan(p.ws.Root, targets)
	var id int64
	if err == nil {
		s := snapshotter{ws: p.ws, opts: p.opts.Chronicle, event: ev}
		id, err = s.take(ctx, "claude-code "+m.Tool, paths, skipped)
	}
	if err == nil {
		return id, nil
	}
	reason := clip("Chronicle could not snapshot what this " + m.Tool + " call changes, so it could not be " +
		"undone; refused (" + err.Error() + "). Narrow the change to fewer files, or run it yourself.")
	ev.Type, ev.Decision, ev.Stage, ev.Rule, ev.Reason = audit.ChronicleSnapshotFailed, verdict.Block.String(),
		"chronicle", RuleSnapshotFailed, reason
	ev.Detail = audit.Detail{Code: CodeSnapshotFailure}
	_, _ = p.ws.Audit.Append(ctx, ev) // refused whether or not the entry lands
	return 0, errors.New(reason)
}

func deny(reason string) Outcome {
	return Outcome{Decision: DecisionDeny, Reason: clip("Parallax: " + reason)}
}

// reasonOf is what the agent (deny) or the human (ask) reads.
func reasonOf(v verdict.Verdict) string {
	verb := "blocked this call"
	if v.Decision == verdict.Escalate {
		verb = "asks you to decide"
	}
	return clip(fmt.Sprintf("Parallax %s (%s, rule %s): %s", verb, v.Stage, v.Rule, v.Reason))
}

func clip(s string) string {
	if len(s) <= maxReasonBytes {
		return s
	}
	return strings.ToValidUTF8(s[:maxReasonBytes-3], "") + "..."
}

// actionLabel is an audit action-type identifier for a tool name.
func actionLabel(tool string) string {
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:/@+=-", c) >= 0
		if !ok || i >= 100 {
			return "claude_code"
		}
	}
	return "claude_code:" + tool
}

// fieldList names unknown fields for a reason, bounded.
func fieldList(names []string) string {
	const most = 5
	q := make([]string, 0, most)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, quoteName(n))
	}
	word := "field "
	if len(names) > 1 {
		word = "fields "
	}
	return word + strings.Join(q, ", ")
}

// quoteName quotes a name from the input for a reason, at most 60 bytes.
func quoteName(n string) string {
	if len(n) > 60 {
		n = strings.ToValidUTF8(n[:57], "") + "..."
	}
	return fmt.Sprintf("%q", n)
}
