package ifc

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// maxSessionDepth bounds the session tree (sub-agents of sub-agents).
const maxSessionDepth = 64

// MemoryStore is a Store in memory: for tests, and for processes without
// a workspace database. It is safe for concurrent use.
type MemoryStore struct {
	mu       sync.RWMutex
	sessions map[string]*memSession
	activity map[string]Activity
	paths    []string // activity keys, sorted
	levels   []Level  // levels[i] is the level of paths[i]: scans skip the map
}

type memSession struct {
	level  Level
	source string
	parent string
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]*memSession{}, activity: map[string]Activity{}}
}

// RaiseTaint implements TaintStore.
func (m *MemoryStore) RaiseTaint(ctx context.Context, session string, level Level, source string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("raise taint of session %q: %w", session, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.raise(session, level.clamp(), source)
	return nil
}

// raise raises s and its ancestors; the caller holds the lock.
func (m *MemoryStore) raise(s string, level Level, source string) {
	for range maxSessionDepth + 1 {
		ss := m.session(s)
		if level > ss.level {
			ss.level, ss.source = level, source
		}
		if ss.parent == "" {
			return
		}
		s = ss.parent
	}
}

func (m *MemoryStore) session(s string) *memSession {
	ss := m.sessions[s]
	if ss == nil {
		ss = &memSession{}
		m.sessions[s] = ss
	}
	return ss
}

// MaxTaint implements TaintStore.
func (m *MemoryStore) MaxTaint(ctx context.Context, session string) (Level, string, error) {
	if err := ctx.Err(); err != nil {
		return Critical, "", fmt.Errorf("read taint of session %q: %w", session, err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if ss := m.sessions[session]; ss != nil {
		return ss.level, ss.source, nil
	}
	return Public, "", nil
}

// SetParent implements TaintStore.
func (m *MemoryStore) SetParent(ctx context.Context, child, parent string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("link session %q to %q: %w", child, parent, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur := m.sessions[child]; cur != nil && cur.parent != "" {
		if cur.parent == parent {
			return nil
		}
		return fmt.Errorf("link session %q to %q: %w (%q)", child, parent, ErrParentConflict, cur.parent)
	}
	s, depth := parent, 0
	for ; s != ""; depth++ {
		if s == child {
			return fmt.Errorf("link session %q to %q: %w", child, parent, ErrSessionCycle)
		}
		if depth >= maxSessionDepth {
			return fmt.Errorf("link session %q to %q: session tree deeper than %d", child, parent, maxSessionDepth)
		}
		if ss := m.sessions[s]; ss != nil {
			s = ss.parent
		} else {
			s = ""
		}
	}
	c := m.session(child)
	c.parent = parent
	m.raise(parent, c.level, c.source)
	return nil
}

// UpsertActivity implements ActivityStore.
func (m *MemoryStore) UpsertActivity(ctx context.Context, a Activity) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("record activity for %s: %w", a.Path, err)
	}
	if !strings.HasPrefix(a.Path, "/") {
		return fmt.Errorf("record activity: path %q is not absolute", a.Path)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.activity[a.Path]
	if !ok {
		i, _ := slices.BinarySearch(m.paths, a.Path)
		m.paths = slices.Insert(m.paths, i, a.Path)
		a.Level = a.Level.clamp()
		m.levels = slices.Insert(m.levels, i, a.Level)
		a.Labels = mergeLabels(nil, a.Labels)
		m.activity[a.Path] = a
		return nil
	}
	merged := MergeActivity(old, a)
	m.activity[a.Path] = merged
	if i, ok := slices.BinarySearch(m.paths, a.Path); ok {
		m.levels[i] = merged.Level
	}
	return nil
}

// ActivityUnder implements ActivityStore.
func (m *MemoryStore) ActivityUnder(ctx context.Context, p string, min Level) ([]Activity, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("look up activity under %s: %w", p, err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []Activity
	for i := sort.SearchStrings(m.paths, p); i < len(m.paths) && strings.HasPrefix(m.paths[i], p); i++ {
		if under(m.paths[i], p) {
			a := m.activity[m.paths[i]]
			if a.Level < min {
				continue
			}
			a.Labels = slices.Clone(a.Labels)
			out = append(out, a)
		}
	}
	return out, nil
}

// TopActivityMatching implements ActivityStore.
func (m *MemoryStore) TopActivityMatching(ctx context.Context, p string, min Level, match func(string) bool) (Activity, bool, error) {
	if err := ctx.Err(); err != nil {
		return Activity{}, false, fmt.Errorf("look up activity under %s: %w", p, err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.top(p, min, match)
}

// TopActivity implements ActivityStore.
func (m *MemoryStore) TopActivity(ctx context.Context, p string, below bool, min Level) (Activity, bool, error) {
	if err := ctx.Err(); err != nil {
		return Activity{}, false, fmt.Errorf("look up activity under %s: %w", p, err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if below {
		return m.top(p, min, nil)
	}
	a, ok := m.activity[p]
	if !ok || a.Level < min {
		return Activity{}, false, nil
	}
	a.Labels = slices.Clone(a.Labels)
	return a, true, nil
}

// top returns the entry of the highest level at or above min among p and
// the paths below it that match accepts (all when match is nil); ties go
// to the first path. m.mu is held.
func (m *MemoryStore) top(p string, min Level, match func(string) bool) (Activity, bool, error) {
	var best Activity
	found := false
	for i := sort.SearchStrings(m.paths, p); i < len(m.paths) && strings.HasPrefix(m.paths[i], p); i++ {
		if !under(m.paths[i], p) {
			continue
		}
		// Only an entry above the best so far is worth a match.
		if l := m.levels[i]; l >= min && (!found || l > best.Level) && (match == nil || match(m.paths[i])) {
			best, found = m.activity[m.paths[i]], true
		}
	}
	best.Labels = slices.Clone(best.Labels)
	return best, found, nil
}

// DeleteActivity implements ActivityStore.
func (m *MemoryStore) DeleteActivity(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete activity for %s: %w", p, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.activity[p]; !ok {
		return nil
	}
	delete(m.activity, p)
	if i, ok := slices.BinarySearch(m.paths, p); ok {
		m.paths = slices.Delete(m.paths, i, i+1)
		m.levels = slices.Delete(m.levels, i, i+1)
	}
	return nil
}
