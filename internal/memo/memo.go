package memo

import (
	"strings"
	"sync"
)

// DefaultLimit is the number of entries a table keeps when New is given
// no limit: enough for the distinct paths of a long session, a few
// hundred kilobytes at most.
const DefaultLimit = 4096

// Table maps strings to results of type V. The zero value is not usable:
// make one with New.
type Table[V any] struct {
	mu    sync.RWMutex
	m     map[string]V
	limit int
}

// New returns an empty table holding at most limit entries (DefaultLimit
// when limit ≤ 0).
func New[V any](limit int) *Table[V] {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Table[V]{m: make(map[string]V), limit: limit}
}

// Get returns the value stored under k.
func (t *Table[V]) Get(k string) (V, bool) {
	t.mu.RLock()
	v, ok := t.m[k]
	t.mu.RUnlock()
	return v, ok
}

// GetBytes is Get for a key held in a byte slice; it does not allocate.
func (t *Table[V]) GetBytes(k []byte) (V, bool) {
	t.mu.RLock()
	v, ok := t.m[string(k)]
	t.mu.RUnlock()
	return v, ok
}

// Put stores v under a copy of k. A full table is emptied first: the
// entries that matter come back on their next use.
func (t *Table[V]) Put(k string, v V) { t.put(strings.Clone(k), v) }

// put stores v under k, which the caller does not share.
func (t *Table[V]) put(k string, v V) {
	t.mu.Lock()
	if _, ok := t.m[k]; !ok && len(t.m) >= t.limit {
		clear(t.m)
	}
	t.m[k] = v
	t.mu.Unlock()
}

// Len returns the number of entries held.
func (t *Table[V]) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}

// Do returns the value stored under k, computing and storing f() when
// there is none. f runs outside the lock: two goroutines may both
// compute it, and both get the same answer since it must be pure.
func (t *Table[V]) Do(k string, f func() V) V {
	if v, ok := t.Get(k); ok {
		return v
	}
	v := f()
	t.put(strings.Clone(k), v)
	return v
}

// DoBytes is Do for a key held in a byte slice (built on the stack by
// the caller): a hit does not allocate.
func (t *Table[V]) DoBytes(k []byte, f func() V) V {
	if v, ok := t.GetBytes(k); ok {
		return v
	}
	v := f()
	t.put(string(k), v)
	return v
}
