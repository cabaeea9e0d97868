package claudecode

import (
	"context"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shell"
)

// Reason codes of the hook (audit rules and detail codes). They are a
// public contract, like the gate's.
const (
	RuleBadInput        = "hook_bad_input"
	RuleUnknownInput    = "hook_unknown_input"
	RuleUnknownTool     = "hook_unknown_tool"
	RuleHostInternal    = "hook_host_internal"
	RuleGateError       = "hook_gate_error"
	RuleSnapshotFailed  = "chronicle_snapshot_failed"
	CodeOutside         = snapshot.CodeOutside
	CodeSealed          = snapshot.CodeSealed
	CodeSnapshotTaken   = "claude_code_pre_tool_use"
	CodeSnapshotFailure = "snapshot_failed"
)

// Target is a path a tool call will write or delete, as Chronicle must
// see it before the call runs.
type Target = shell.PathUse

// Targets lists what the call will change: the file of a file tool, the
// written and deleted paths of a Bash command (shell analysis, in its
// cwd). Reads are not targets.
func (m *Mapped) Targets(home string) []Target {
	if m.Command == "" {
		out := make([]Target, len(m.Files))
		for i, f := range m.Files {
			out[i] = Target{Path: f, Access: action.AccessWrite}
		}
		return out
	}
	eff := shell.Analyze(m.Command, shell.Options{Cwd: m.Cwd, Home: home})
	var out []Target
	for _, u := range eff.Paths {
		if u.Access&(action.AccessWrite|action.AccessDelete) != 0 {
			out = append(out, u)
		}
	}
	return out
}

// plan is snapshot.Plan with the hook's literal glob prefix.
func plan(root string, targets []Target) ([]string, []snapshot.Skip, error) {
	return snapshot.Plan(root, targets, literalPrefix)
}

// snapshotter takes the hook's snapshots (snapshot.Taker).
type snapshotter struct {
	ws    *workspace.Workspace
	opts  chronicle.Options
	event audit.Event // session, action type and hash of the call
}

func (s *snapshotter) take(ctx context.Context, reason string, paths []string, skipped []snapshot.Skip) (int64, error) {
	t := snapshot.Taker{WS: s.ws, Opts: s.opts, Event: s.event, Code: CodeSnapshotTaken}
	return t.Take(ctx, reason, paths, skipped)
}
