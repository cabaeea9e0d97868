package shield

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/verdict"
)

// RuleTaintUnrecorded is the reason code of a block because a session's
// taint could not be made durable: until it is, every action of the
// workspace is refused.
const RuleTaintUnrecorded = "taint_unrecorded"

// SourceUnrecorded is the taint source kept for a session whose tool
// result could not be fully recorded.
const SourceUnrecorded = "observe_failed"

// unrecorded holds the taints a gate could not write to its store. The
// set is process-wide per workspace (gates of one workspace in one
// process share it): a gate built after the failure still refuses. While
// it is not empty, every Evaluate first retries the writes, and refuses
// the action if one still fails. It refuses the whole workspace, not only
// the session: the store could not say which sessions descend from it,
// and a store that cannot write blocks the audit chain too.
type unrecorded struct {
	n  atomic.Int32 // len(m), read without the lock on the hot path
	mu sync.Mutex
	m  map[string]ifc.Level // session → level to record
}

var (
	unrecordedMu   sync.Mutex
	unrecordedByWS = map[string]*unrecorded{}
)

// unrecordedFor returns the process-wide set of the workspace ws.
func unrecordedFor(ws string) *unrecorded {
	unrecordedMu.Lock()
	defer unrecordedMu.Unlock()
	u := unrecordedByWS[ws]
	if u == nil {
		u = &unrecorded{m: map[string]ifc.Level{}}
		unrecordedByWS[ws] = u
	}
	return u
}

// add keeps level for session, the higher one when it is already there.
func (u *unrecorded) add(session string, level ifc.Level) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if cur, ok := u.m[session]; !ok || level > cur {
		u.m[session] = level
	}
	u.n.Store(int32(len(u.m)))
}

// flush retries every write; what lands leaves the set. It returns the
// number of sessions still unrecorded.
func (u *unrecorded) flush(ctx context.Context, s ifc.TaintStore) int {
	if u.n.Load() == 0 {
		return 0
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for session, level := range u.m {
		if err := s.RaiseTaint(ctx, session, level, SourceUnrecorded); err == nil {
			delete(u.m, session)
		}
	}
	u.n.Store(int32(len(u.m)))
	return len(u.m)
}

// raiseFirst raises the session's taint to level, durably or, when the
// store cannot write, in the process-wide set. It is the first write of an
// observation: nothing that fails after it can lose the taint.
func (g *Gate) raiseFirst(ctx context.Context, session string, level ifc.Level, source string) error {
	if session == "" || level <= ifc.Public {
		return nil
	}
	err := g.ifc.Store().RaiseTaint(context.WithoutCancel(orBackground(ctx)), session, level, source)
	if err != nil {
		g.unrecorded.add(session, level)
	}
	return err
}

// checkUnrecorded refuses an action while a taint of the workspace is not
// durably recorded, after trying once more to record it.
func (g *Gate) checkUnrecorded(ctx context.Context) (verdict.Verdict, bool) {
	left := g.unrecorded.flush(context.WithoutCancel(orBackground(ctx)), g.ifc.Store())
	if left == 0 {
		return verdict.Verdict{}, false
	}
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageIFC, Tier: 1, Rule: RuleTaintUnrecorded,
		Reason: "a session's taint could not be written to the workspace store (is the disk full?); " +
			"every action is refused until it is recorded"}, true
}

// ErrTaintUnrecorded is CheckTaint's error while a taint of the workspace
// could not be written to its store.
var ErrTaintUnrecorded = errors.New("a session's taint is not recorded in the workspace store")

// CheckTaint retries the taints the store could not write (see
// unrecorded) and fails with ErrTaintUnrecorded while one is left: a
// health check of the gate's store.
func (g *Gate) CheckTaint(ctx context.Context) error {
	if n := g.unrecorded.flush(ctx, g.ifc.Store()); n > 0 {
		return fmt.Errorf("%w (%d sessions)", ErrTaintUnrecorded, n)
	}
	return nil
}

// RaiseTaint raises the session's taint in the gate's store, or, when the
// store cannot write it, keeps it in the unrecorded set (and fails): a
// caller that marks a session (a result it could not pass to Observe)
// loses nothing to a full disk either.
func (g *Gate) RaiseTaint(ctx context.Context, session string, level ifc.Level, source string) error {
	return g.raiseFirst(ctx, session, level, source)
}
