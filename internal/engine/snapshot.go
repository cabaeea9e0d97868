package engine

import (
	"context"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/internal/toolgroup"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shell"
)

// Snapshotter takes the Chronicle snapshot of what an allowed call will
// change, and audits it (snapshot.Taker's entries). It returns the
// snapshot id (0: nothing to take) and the targets it could not take
// (outside the workspace, in .parallax: no rollback covers them), or an
// error: the call must not run.
type Snapshotter interface {
	Snapshot(ctx context.Context, ev audit.Event, reason string, targets []snapshot.Target) (int64, []snapshot.Skip, error)
}

// Chronicle is the Snapshotter of an open workspace.
type Chronicle struct {
	WS   *workspace.Workspace
	Opts chronicle.Options
}

var _ Snapshotter = (*Chronicle)(nil)

// Snapshot plans the targets (globs expanded, paths outside the
// workspace or in .parallax audited as skipped) and takes them.
func (c *Chronicle) Snapshot(ctx context.Context, ev audit.Event, reason string, targets []snapshot.Target) (int64, []snapshot.Skip, error) {
	paths, skipped, err := snapshot.Plan(c.WS.Root, targets, nil)
	if err != nil {
		return 0, nil, err
	}
	t := snapshot.Taker{WS: c.WS, Opts: c.Opts, Event: ev, Code: CodeSnapshotTaken}
	id, err := t.Take(ctx, reason, paths, skipped)
	if err != nil {
		return 0, nil, err
	}
	return id, skipped, nil
}

// targets lists what act may change, as the tool table says
// (toolgroup.SnapshotOf): its write and delete path fields, for a shell
// command the written and deleted paths of its analysed effects (the
// same analysis the gate judged) and the manifest and lock files its
// package managers rewrite unnamed (manifestTargets), for a tool that changes files it does
// not name (a type outside the table that writes files: git_pull,
// git_checkout) the workspace. Reads are not targets.
func (p *Pipeline) targets(act *action.Action) []snapshot.Target {
	kind := toolgroup.SnapshotOf(act.Type)
	var out []snapshot.Target
	if kind&toolgroup.SnapshotPaths != 0 {
		for _, pf := range act.Payload.PathFields() {
			if pf.Access&(action.AccessWrite|action.AccessDelete) != 0 {
				out = append(out, snapshot.Target{Path: *pf.Path, Access: pf.Access})
			}
		}
	}
	if code := action.ShellCode(act); code != "" && kind&toolgroup.SnapshotShell != 0 {
		eff := shell.Analyze(code, shell.Options{Cwd: p.cfg.Workspace, Home: p.cfg.Home})
		for _, u := range eff.Paths {
			if u.Access&(action.AccessWrite|action.AccessDelete) != 0 {
				out = append(out, u)
			}
		}
		out = append(out, manifestTargets(eff, p.cfg.Workspace)...)
	}
	if kind&toolgroup.SnapshotTree != 0 {
		out = append(out, snapshot.Target{Path: p.cfg.Workspace, Access: action.AccessWrite})
	}
	return out
}
