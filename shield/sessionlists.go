package shield

import (
	"slices"
	"sync"
)

// sessionLists keeps, per session, a bounded list of the most recent
// items a session left (its downloads, the runnable files it wrote): at
// most maxItems per session, the most recent kept, and at most
// maxSessions sessions, the oldest forgotten first. Safe for concurrent
// use.
type sessionLists[T any] struct {
	mu                    sync.Mutex
	m                     map[string][]T
	order                 []string // sessions, oldest first
	maxSessions, maxItems int
	same                  func(a, b T) bool // an item that replaces another
}

func newSessionLists[T any](maxSessions, maxItems int, same func(a, b T) bool) *sessionLists[T] {
	return &sessionLists[T]{m: map[string][]T{}, maxSessions: maxSessions, maxItems: maxItems, same: same}
}

// find returns the session's item that match accepts.
func (l *sessionLists[T]) find(session string, match func(T) bool) (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.IndexFunc(l.m[session], match); i >= 0 {
		return l.m[session][i], true
	}
	var zero T
	return zero, false
}

// add records items for session, each replacing the same one recorded
// before and becoming the most recent.
func (l *sessionLists[T]) add(session string, items ...T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	xs, seen := l.m[session]
	if !seen {
		if len(l.order) >= l.maxSessions {
			delete(l.m, l.order[0])
			l.order = l.order[1:]
		}
		l.order = append(l.order, session)
	}
	for _, it := range items {
		xs = slices.DeleteFunc(xs, func(x T) bool { return l.same(x, it) })
		xs = append(xs, it)
	}
	if len(xs) > l.maxItems {
		xs = xs[len(xs)-l.maxItems:]
	}
	l.m[session] = xs
}
