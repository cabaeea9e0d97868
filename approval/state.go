package approval

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// State keeps what outlives one request: when requests were put to a
// human (the hourly cap) and the session grants. One State serves one
// workspace; it must be safe for concurrent use.
type State interface {
	// Reserve counts one request at now unless limit requests were
	// already counted in the window (now-window, now]. It returns how
	// many are counted in the window (this one included when counted) and
	// whether this one was.
	Reserve(ctx context.Context, now time.Time, window time.Duration, limit int) (n int, ok bool, err error)
	// AddGrant stores a grant.
	AddGrant(ctx context.Context, g Grant) error
	// Grants returns the session's grants that have not expired at now.
	Grants(ctx context.Context, session string, now time.Time) ([]Grant, error)
	// EndSession drops the session's grants and returns how many it had.
	EndSession(ctx context.Context, session string) (int, error)
}

// MaxGrantsPerSession bounds the grants one session holds in a
// MemoryState; AddGrant refuses more.
const MaxGrantsPerSession = 256

// MemoryState is a State that lives as long as the process.
type MemoryState struct {
	mu     sync.Mutex
	asks   []time.Time // request times, oldest first, pruned to the window
	grants map[string][]Grant
}

var _ State = (*MemoryState)(nil)

// NewMemoryState returns an empty in-memory state.
func NewMemoryState() *MemoryState {
	return &MemoryState{grants: make(map[string][]Grant)}
}

// Reserve implements State.
func (m *MemoryState) Reserve(_ context.Context, now time.Time, window time.Duration, limit int) (int, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cut := now.Add(-window)
	i := 0
	for i < len(m.asks) && !m.asks[i].After(cut) {
		i++
	}
	m.asks = m.asks[i:]
	if len(m.asks) >= limit {
		return len(m.asks), false, nil
	}
	m.asks = append(m.asks, now)
	return len(m.asks), true, nil
}

// AddGrant implements State. A grant equal in effect to one the session
// holds (same kind, rule, hash or pattern) replaces it.
func (m *MemoryState) AddGrant(_ context.Context, g Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	gs := m.grants[g.Session]
	for i := range gs {
		if gs[i].Kind == g.Kind && gs[i].Rule == g.Rule && gs[i].ActionHash == g.ActionHash && gs[i].Pattern == g.Pattern {
			gs[i] = g
			return nil
		}
	}
	if len(gs) >= MaxGrantsPerSession {
		return fmt.Errorf("add grant %s: session holds %d grants, the limit", g.ID, len(gs))
	}
	m.grants[g.Session] = append(gs, g)
	return nil
}

// Grants implements State; expired grants are dropped on the way.
func (m *MemoryState) Grants(_ context.Context, session string, now time.Time) ([]Grant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	gs := m.grants[session]
	live := gs[:0]
	for _, g := range gs {
		if now.Before(g.Expires) {
			live = append(live, g)
		}
	}
	if len(live) == 0 {
		delete(m.grants, session)
		return nil, nil
	}
	m.grants[session] = live
	return append([]Grant(nil), live...), nil
}

// EndSession implements State.
func (m *MemoryState) EndSession(_ context.Context, session string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.grants[session])
	delete(m.grants, session)
	return n, nil
}
