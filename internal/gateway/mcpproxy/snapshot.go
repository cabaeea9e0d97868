package mcpproxy

import (
	"context"
	"errors"
	"fmt"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/snapshot"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Reason and detail codes of the proxy's Chronicle snapshots.
const (
	RuleSnapshotFailed  = "chronicle_snapshot_failed"
	CodeSnapshotTaken   = "mcp_pre_call"
	CodeSnapshotFailure = "snapshot_failed"
)

// targets lists what an allowed call will write, delete or move inside
// or outside the workspace: the write and delete paths of its actions
// (the primary action and More; not Paths, the paths an unknown tool
// names, which are judged as writes but may be whole trees it only
// reads). An action that does not decode is an error: the call must not
// run unsnapshotted.
func (p *Proxy) targets(m Mapped) ([]snapshot.Target, error) {
	var out []snapshot.Target
	for _, r := range append([]shield.Request{m.Primary}, m.More...) {
		a, err := action.Decode(r.Type, r.Payload)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", r.Type, err)
		}
		if err := action.Normalize(a, action.Env{Home: p.cfg.Home}); err != nil {
			return nil, err
		}
		for _, pf := range a.Payload.PathFields() {
			if pf.Access&(action.AccessWrite|action.AccessDelete) != 0 {
				out = append(out, snapshot.Target{Path: *pf.Path, Access: pf.Access})
			}
		}
	}
	return out, nil
}

// snapshot takes the Chronicle snapshot of what an allowed call changes
// in the workspace, before it is forwarded. Paths outside the workspace
// are audited as not snapshotted. Any failure is audited and returned as
// the BLOCK the call gets: a change that could not be undone is refused.
func (p *Proxy) snapshot(ctx context.Context, name string, m Mapped) (int64, *verdict.Verdict) {
	if p.cfg.Chronicle == nil {
		return 0, nil
	}
	ev := audit.Event{Session: p.cfg.Session, ActionType: m.Primary.Type}
	targets, err := p.targets(m)
	if err == nil && len(targets) == 0 {
		return 0, nil
	}
	var id int64
	if err == nil {
		var paths []string
		var skipped []snapshot.Skip
		if paths, skipped, err = snapshot.Plan(p.cfg.Chronicle.Root, targets, nil); err == nil {
			t := snapshot.Taker{WS: p.cfg.Chronicle, Opts: p.cfg.ChronicleOptions, Event: ev, Code: CodeSnapshotTaken}
			id, err = t.Take(ctx, "mcp "+p.cfg.ServerID+" "+name, paths, skipped)
		}
	}
	if err == nil {
		return id, nil
	}
	v := verdict.Verdict{Decision: verdict.Block, Stage: "chronicle", Rule: RuleSnapshotFailed,
		Reason: "Chronicle could not snapshot what this " + name + " call changes, so it could not be undone; refused (" +
			redactErr(p.dlp, err) + ")"}
	ev.Type, ev.Decision, ev.Stage, ev.Rule, ev.Reason = audit.ChronicleSnapshotFailed, verdict.Block.String(),
		string(v.Stage), v.Rule, v.Reason
	ev.Detail = audit.Detail{Code: CodeSnapshotFailure, Ref: p.cfg.ServerID, Message: "tool " + name}
	if aerr := p.appendAudit(ctx, ev); aerr != nil {
		p.log.Error("mcp proxy: audit", "rule", RuleSnapshotFailed, "error", errors.Join(err, aerr))
	}
	return 0, &v
}
