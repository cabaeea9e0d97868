package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/store"
)

// IFCStore returns the workspace database as the gate's IFC store, so
// that separate processes (hook calls) share session taint and labels.
// A raise the database cannot write goes to the taint journal, and every
// read of a taint replays the journal first (see taintjournal.go).
func (w *Workspace) IFCStore() ifc.Store {
	return ifcStore{db: w.DB, journal: TaintJournalPath(w.Root), raise: w.DB.RaiseTaint}
}

// ifcStore adapts store.DB to ifc.Store. Levels are the same integers.
type ifcStore struct {
	db      *store.DB
	journal string    // the taint journal
	raise   raiseFunc // db.RaiseTaint; tests inject a full disk here
}

var _ ifc.Store = ifcStore{}

// RaiseTaint writes only when it raises: a session already at level or
// above keeps its record (a read is far cheaper than a synced write, and
// most reads of an agent's session add nothing).
func (s ifcStore) RaiseTaint(ctx context.Context, session string, level ifc.Level, source string) error {
	if source == "" {
		source = "unknown"
	}
	if cur, _, err := s.db.TaintOf(ctx, session); err == nil && cur >= int(level) {
		return nil
	}
	err := s.raise(ctx, session, int(level), source)
	if err == nil {
		return nil
	}
	// The database cannot take it (a full disk): the journal keeps it
	// durably until a later read replays it.
	if jerr := journalTaint(s.journal, pendingTaint{Session: session, Level: int(level), Source: source}); jerr != nil {
		return errors.Join(err, jerr)
	}
	return nil
}

// raiseAbove writes a raise of the journal unless the session already
// holds that level (the hook journals a result's raise before the gate
// writes it to the database: most lines need no write).
func (s ifcStore) raiseAbove(ctx context.Context, session string, level int, source string) error {
	if cur, _, err := s.db.TaintOf(ctx, session); err == nil && cur >= level {
		return nil
	}
	return s.raise(ctx, session, level, source)
}

// MaxTaint replays the taint journal first: while a raise in it cannot be
// written, every session reads as critical, with an error.
func (s ifcStore) MaxTaint(ctx context.Context, session string) (ifc.Level, string, error) {
	if err := replayJournal(ctx, s.journal, s.raiseAbove); err != nil {
		return ifc.Critical, "", err
	}
	lvl, src, err := s.db.TaintOf(ctx, session)
	if err != nil {
		return ifc.Critical, "", err
	}
	return ifc.Level(lvl), src, nil
}

// SetParent links child to parent and passes what child has seen up to
// parent and its ancestors.
func (s ifcStore) SetParent(ctx context.Context, child, parent string) error {
	if child == parent {
		return fmt.Errorf("link session %q to itself: %w", child, ifc.ErrSessionCycle)
	}
	if err := s.db.EnsureSession(ctx, parent); err != nil {
		return err
	}
	if err := s.db.StartSession(ctx, child, parent, nil); err != nil {
		if errors.Is(err, store.ErrSessionParent) {
			return fmt.Errorf("link session %q to %q: %w (%v)", child, parent, ifc.ErrParentConflict, err)
		}
		return err
	}
	taints, err := s.db.Taints(ctx, child)
	if err != nil {
		return err
	}
	for _, t := range taints {
		if err := s.db.RaiseTaint(ctx, parent, t.Level, t.Source); err != nil {
			return err
		}
	}
	return nil
}

func (s ifcStore) UpsertActivity(ctx context.Context, a ifc.Activity) error {
	return s.db.UpsertActivity(ctx, store.Activity{Path: a.Path, Level: int(a.Level), Labels: a.Labels,
		Source: a.Source, Session: a.Session})
}

func (s ifcStore) ActivityUnder(ctx context.Context, p string, min ifc.Level) ([]ifc.Activity, error) {
	rows, err := s.db.ActivityUnder(ctx, p, int(min))
	if err != nil {
		return nil, err
	}
	out := make([]ifc.Activity, len(rows))
	for i, r := range rows {
		out[i] = fromStore(r)
	}
	return out, nil
}

func (s ifcStore) TopActivity(ctx context.Context, p string, below bool, min ifc.Level) (ifc.Activity, bool, error) {
	r, ok, err := s.db.TopActivity(ctx, p, below, int(min))
	if err != nil || !ok {
		return ifc.Activity{}, false, err
	}
	return fromStore(r), true, nil
}

func (s ifcStore) TopActivityMatching(ctx context.Context, p string, min ifc.Level, match func(string) bool) (ifc.Activity, bool, error) {
	r, ok, err := s.db.TopActivityMatching(ctx, p, int(min), match)
	if err != nil || !ok {
		return ifc.Activity{}, false, err
	}
	return fromStore(r), true, nil
}

func (s ifcStore) DeleteActivity(ctx context.Context, p string) error {
	_, err := s.db.DeleteActivity(ctx, p)
	return err
}

func fromStore(r store.Activity) ifc.Activity {
	return ifc.Activity{Path: r.Path, Level: ifc.Level(r.Level), Labels: r.Labels, Source: r.Source,
		Session: r.Session, Updated: r.UpdatedAt}
}
