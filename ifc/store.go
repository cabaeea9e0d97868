package ifc

import (
	"context"
	"errors"
	"slices"
	"time"
)

// TaintStore keeps the session taint: the highest level a session has
// seen, and where it came from. The SQLite store of a workspace and
// MemoryStore implement it.
type TaintStore interface {
	// RaiseTaint raises the taint of session, and of every ancestor
	// session (SetParent), to at least level. A raise never lowers a
	// taint; source (a path or label, never data) is kept with the
	// highest level, the first one on a tie.
	RaiseTaint(ctx context.Context, session string, level Level, source string) error
	// MaxTaint returns the session's taint: Public and "" for a session
	// never seen.
	MaxTaint(ctx context.Context, session string) (Level, string, error)
	// SetParent records that child is a sub-agent of parent, and raises
	// parent (and its ancestors) to child's taint. It fails with
	// ErrSessionCycle when parent is child or descends from it, and with
	// ErrParentConflict when child already has another parent.
	SetParent(ctx context.Context, child, parent string) error
}

// ActivityStore keeps the activity table: files that received classified
// data, with the label later reads of them inherit, across sessions.
type ActivityStore interface {
	// UpsertActivity records a label for a.Path, keeping the maximum: a
	// lower level never replaces a higher one (its labels are merged),
	// a higher one replaces level, source and session.
	UpsertActivity(ctx context.Context, a Activity) error
	// ActivityUnder returns the entries at level min or above for p and
	// every path below it, sorted by path. "/" with Public lists the whole
	// table.
	ActivityUnder(ctx context.Context, p string, min Level) ([]Activity, error)
	// TopActivity returns the entry of the highest level at or above min
	// for p, or for p and every path below it when below is set; ok is
	// false when there is none. Ties go to the first path in order.
	TopActivity(ctx context.Context, p string, below bool, min Level) (a Activity, ok bool, err error)
	// TopActivityMatching is TopActivity over p and every path below it,
	// counting only the paths match accepts: the entry a glob read
	// inherits. match is called with the store's lock held, at most once
	// per entry and only for entries that could win; it must not call the
	// store.
	TopActivityMatching(ctx context.Context, p string, min Level, match func(path string) bool) (a Activity, ok bool, err error)
	// DeleteActivity removes the entry for p (no error if there is none).
	DeleteActivity(ctx context.Context, p string) error
}

// Store is what the tracker needs from its persistence.
type Store interface {
	TaintStore
	ActivityStore
}

// Activity is one entry of the activity table.
type Activity struct {
	Path    string    // absolute, cleaned
	Level   Level     // the label reads of Path inherit
	Labels  []string  // content labels (DLP kinds), sorted, never data
	Source  string    // what carried the level: a path, a content label, the session taint
	Session string    // the session whose action wrote it
	Updated time.Time // when it was last raised or merged
}

// Errors of the session tree.
var (
	ErrSessionCycle   = errors.New("session link would make a cycle")
	ErrParentConflict = errors.New("session already has another parent")
)

// maxLabels bounds the labels kept per activity entry.
const maxLabels = 16

// MergeActivity is the keep-max rule of UpsertActivity, exported so that
// every store implements the same semantics: it returns what the entry
// old becomes when in is upserted over it (same path).
func MergeActivity(old, in Activity) Activity {
	out := old
	if in.Level.clamp() > old.Level.clamp() {
		out.Level, out.Source, out.Session = in.Level.clamp(), in.Source, in.Session
	}
	out.Labels = mergeLabels(old.Labels, in.Labels)
	if in.Updated.After(out.Updated) {
		out.Updated = in.Updated
	}
	return out
}

// mergeLabels returns the sorted union of two sorted-or-not label lists,
// bounded to maxLabels.
func mergeLabels(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, l := range append(append([]string(nil), a...), b...) {
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	slices.Sort(out)
	if len(out) > maxLabels {
		out = out[:maxLabels]
	}
	return out
}
