package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/parallax/parallax/ifc"
)

// One agent process holds every session it works on in its memory: what
// one session has read, the others could send. So before a proposal is
// judged, its session is raised to the highest taint of every session
// this engine's agent has worked on (sessions only ever go up); a
// compromised agent cannot launder a tainted session's data through a
// clean one. Sub-agents, later, are separate processes with their own
// domains.

// shareTaint records session as served by the agent and raises it to
// the highest taint among the served sessions. An error means the taint
// could not be read or written: the caller refuses the proposal.
func (r *Runtime) shareTaint(ctx context.Context, session string) error {
	r.mu.Lock()
	if !slices.Contains(r.served, session) {
		r.served = append(r.served, session)
	}
	served := slices.Clone(r.served)
	r.mu.Unlock()
	store := r.ws.IFCStore()
	top, from := ifc.Public, ""
	for _, s := range served {
		lvl, _, err := store.MaxTaint(ctx, s)
		if err != nil {
			return fmt.Errorf("read the taint of session %s: %w", s, err)
		}
		if lvl > top {
			top, from = lvl, s
		}
	}
	if from == "" || from == session {
		return nil
	}
	cur, _, err := store.MaxTaint(ctx, session)
	if err != nil {
		return fmt.Errorf("read the taint of session %s: %w", session, err)
	}
	if cur >= top {
		return nil
	}
	return store.RaiseTaint(ctx, session, top, "the agent process also holds session "+from)
}
