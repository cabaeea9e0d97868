package engine

import (
	"context"
	"fmt"

	"github.com/parallax/parallax/ifc"
)

// One agent process holds every session it works on in its memory: what
// one session has read, the others could send. So before a proposal is
// judged, its session is raised to the highest taint any session of this
// engine's agent has reached (sessions only ever go up); a compromised
// agent cannot launder a tainted session's data through a clean one.
// The highest level is kept as it is reached (shareTaint before a
// proposal, noteTaint after its result was classified), so a proposal
// costs one taint read, not one per session served. Sub-agents, later,
// are separate processes with their own domains.

// sharedTaint is the highest taint the agent's sessions have reached,
// and the session that reached it.
type sharedTaint struct {
	level ifc.Level
	from  string
}

// shareTaint raises session to the highest taint among the agent's
// sessions, or makes its own level the highest. An error means the
// taint could not be read or written: the caller refuses the proposal.
func (r *Runtime) shareTaint(ctx context.Context, session string) error {
	store := r.ws.IFCStore()
	cur, _, err := store.MaxTaint(ctx, session)
	if err != nil {
		return fmt.Errorf("read the taint of session %s: %w", session, err)
	}
	top := r.raiseShared(session, cur)
	if cur >= top.level {
		return nil
	}
	return store.RaiseTaint(ctx, session, top.level, "the agent process also holds session "+top.from)
}

// noteTaint takes in the level session reached while its proposal ran
// (a result the gate classified). A level that cannot be read counts as
// critical.
func (r *Runtime) noteTaint(ctx context.Context, session string) {
	lvl, _, err := r.ws.IFCStore().MaxTaint(ctx, session)
	if err != nil {
		lvl = ifc.Critical
		r.log.Error("engine: read a session's taint after its proposal; the agent's sessions count as critical", "session", session, "error", err)
	}
	r.raiseShared(session, lvl)
}

// raiseShared makes lvl of session the highest when it is, and returns
// the highest.
func (r *Runtime) raiseShared(session string, lvl ifc.Level) sharedTaint {
	r.mu.Lock()
	defer r.mu.Unlock()
	if lvl > r.shared.level {
		r.shared = sharedTaint{level: lvl, from: session}
	}
	return r.shared
}
