package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/workspace"
)

// maxUndoPaths bounds the paths /undo names.
const maxUndoPaths = 20

// chronicleOf returns the Chronicle /undo restores from.
func (m *Manager) chronicleOf() (*chronicle.Chronicle, error) {
	m.chronMu.Lock()
	defer m.chronMu.Unlock()
	if m.chron == nil {
		c, err := chronicle.New(m.opts.Workspace, m.db, chronicle.Options{Now: m.opts.Now})
		if err != nil {
			return nil, err
		}
		m.chron = c
	}
	return m.chron, nil
}

// lastTurn finds the latest turn of the session that took snapshots or
// did something no snapshot covers, and was not undone; its ID is ""
// when there is none. otr says whether the session is off the record.
func (m *Manager) lastTurn(ctx context.Context, session string) (t store.UndoableTurn, otr bool, err error) {
	m.mu.Lock()
	if s, ok := m.otr[session]; ok {
		defer m.mu.Unlock()
		for i := len(s.turns) - 1; i >= 0; i-- {
			if t := s.turns[i]; !t.undone && len(t.snaps)+len(t.effects) > 0 {
				snaps := slices.Clone(t.snaps)
				slices.Sort(snaps)
				effects := slices.Clone(t.effects)
				slices.SortFunc(effects, compareEffects)
				return store.UndoableTurn{ID: t.id, Snapshots: snaps, Effects: effects}, true, nil
			}
		}
		return store.UndoableTurn{}, true, nil
	}
	m.mu.Unlock()
	t, err = m.db.LastUndoableTurn(ctx, session)
	if errors.Is(err, ErrNotFound) {
		return store.UndoableTurn{}, false, nil
	}
	return t, false, err
}

func compareEffects(a, b Effect) int {
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return strings.Compare(a.Subject, b.Subject)
}

func (m *Manager) markUndone(ctx context.Context, session, turn string, otr bool) error {
	if !otr {
		return m.db.MarkTurnUndone(ctx, session, turn, m.opts.Now().UTC())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.otr[session]; ok {
		for i := range s.turns {
			if s.turns[i].id == turn {
				s.turns[i].undone = true
			}
		}
	}
	return nil
}

// cmdUndo restores the files the session's last changing turn changed:
// its snapshots are rolled back newest first, so each path ends as the
// earliest snapshot of the turn found it. Every snapshot is checked
// first; nothing is restored when one is missing or damaged. What the
// turn did that no snapshot covers (NoteEffects) is named as not
// restored, to the user and to the model.
func (m *Manager) cmdUndo(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/undo")
	}
	t, otr, err := m.lastTurn(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	if t.ID == "" {
		return CommandResult{Text: "nothing to undo: no turn of this session changed the workspace or anything outside it (or all were undone)"}, nil
	}
	paths, err := m.snapshotPaths(ctx, t)
	if err != nil {
		return CommandResult{}, err
	}
	var undos []string
	restored, removed := 0, 0
	final := map[string]string{} // path → what the last rollback that touched it did
	for i := len(t.Snapshots) - 1; i >= 0; i-- {
		chron, err := m.chronicleOf()
		if err != nil {
			return CommandResult{}, err
		}
		res, err := workspace.AuditedRollback(ctx, m.opts.Audit, chron, t.Snapshots[i], workspace.Rollback{Session: c.session,
			Reason: fmt.Sprintf("/undo of turn %s: chronicle rollback to #%d", t.ID, t.Snapshots[i])})
		if res.Undo.ID > 0 {
			undos = append(undos, "#"+strconv.FormatInt(res.Undo.ID, 10))
		}
		if err != nil {
			return CommandResult{}, fmt.Errorf("undo of turn %s stopped at snapshot #%d (undo snapshots taken so far: %s): %w",
				t.ID, t.Snapshots[i], strings.Join(undos, ", "), err)
		}
		restored, removed = restored+res.Restored, removed+res.Removed
		for _, p := range res.Gone {
			final[p] = "removed"
		}
		for _, p := range res.Written {
			final[p] = "written back"
		}
	}
	if err := m.markUndone(ctx, c.session, t.ID, otr); err != nil {
		return CommandResult{}, err
	}
	shown := bounded(paths)
	left := notRestored(t.Effects)
	var text, notice string
	if len(t.Snapshots) == 0 {
		text = fmt.Sprintf("undid turn %s: it changed no file a snapshot keeps, so nothing was restored\nnot restored: %s", t.ID, left)
		notice = fmt.Sprintf("[Parallax: the user ran /undo on your turn %s; nothing of it could be restored. Not restored: %s.]", t.ID, left)
	} else {
		text = fmt.Sprintf("undid turn %s (%d written back, %d removed, from %d snapshot(s)): %s\nnot restored: %s\n"+
			"to revert the undo: parallax chronicle rollback each of %s, in that order",
			t.ID, restored, removed, len(t.Snapshots), whatWasDone(paths, final), left, reversed(undos))
		notice = fmt.Sprintf("[Parallax: the user ran /undo: the changes your turn %s made to %s were reverted; "+
			"those files are as they were before that turn. Read them again before relying on them. Not restored: %s.]",
			t.ID, strings.Join(shown, ", "), left)
	}
	m.setNotice(c.session, notice)
	return CommandResult{Text: text}, nil
}

// whatWasDone names, per path, what /undo did: written back, removed,
// or nothing because the path was already as before the turn (a
// manifest a snapshot kept while absent, say).
func whatWasDone(paths []string, final map[string]string) string {
	var written, removed, same []string
	for p, did := range final {
		if did == "removed" {
			removed = append(removed, p)
		} else {
			written = append(written, p)
		}
	}
	for _, p := range paths {
		touched := false
		for q := range final {
			if q == p || strings.HasPrefix(q, p+"/") || p == "." {
				touched = true
				break
			}
		}
		if !touched {
			same = append(same, p)
		}
	}
	slices.Sort(written)
	slices.Sort(removed)
	var parts []string
	if len(written) > 0 {
		parts = append(parts, "written back: "+strings.Join(bounded(written), ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed: "+strings.Join(bounded(removed), ", "))
	}
	if len(same) > 0 {
		parts = append(parts, "already as before it: "+strings.Join(bounded(same), ", "))
	}
	if len(parts) == 0 {
		return "every path was already as before it"
	}
	return strings.Join(parts, "; ")
}

// snapshotPaths lists, sorted, the paths a turn's snapshots hold, each
// snapshot checked to exist first.
func (m *Manager) snapshotPaths(ctx context.Context, t store.UndoableTurn) ([]string, error) {
	if len(t.Snapshots) == 0 {
		return nil, nil
	}
	chron, err := m.chronicleOf()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, id := range t.Snapshots {
		snap, _, err := chron.Get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("nothing was restored: snapshot #%d of turn %s: %w", id, t.ID, err)
		}
		for _, p := range snap.Paths {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	return paths, nil
}

// bounded is at most maxUndoPaths of items, then how many more.
func bounded(items []string) []string {
	if len(items) <= maxUndoPaths {
		return items
	}
	return append(slices.Clone(items[:maxUndoPaths]), fmt.Sprintf("(+%d)", len(items)-maxUndoPaths))
}

// notRestored says what of a turn no snapshot covered, by kind, bounded;
// "nothing outside the snapshots" when all it did was covered.
func notRestored(effects []Effect) string {
	if len(effects) == 0 {
		return "nothing outside the snapshots"
	}
	var writes, hosts []string
	for _, e := range effects {
		switch e.Kind {
		case EffectWrite:
			writes = append(writes, e.Subject)
		case EffectNetwork:
			hosts = append(hosts, e.Subject)
		}
	}
	var parts []string
	if len(writes) > 0 {
		parts = append(parts, "changed outside the workspace, where no snapshot reaches: "+strings.Join(bounded(writes), ", "))
	}
	if len(hosts) > 0 {
		parts = append(parts, "connections its commands made, which stay made (a push, an upload or a publish is not undone): "+
			strings.Join(bounded(hosts), ", "))
	}
	s := strings.Join(parts, "; ")
	if len(effects) >= store.MaxTurnEffects {
		s += fmt.Sprintf(" (the first %d recorded; there may be more)", store.MaxTurnEffects)
	}
	return s
}

// reversed lists the undo snapshots in the order that reverts /undo: the
// last one taken first, so the first one (the state before /undo) wins.
func reversed(ids []string) string {
	r := slices.Clone(ids)
	slices.Reverse(r)
	return strings.Join(r, ", ")
}
