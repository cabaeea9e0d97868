package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/chronicle"
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

// lastTurn finds the latest turn of the session that took snapshots and
// was not undone; "" when there is none.
func (m *Manager) lastTurn(ctx context.Context, session string) (string, []int64, bool, error) {
	m.mu.Lock()
	if s, ok := m.otr[session]; ok {
		defer m.mu.Unlock()
		for i := len(s.turns) - 1; i >= 0; i-- {
			if t := s.turns[i]; !t.undone && len(t.snaps) > 0 {
				snaps := slices.Clone(t.snaps)
				slices.Sort(snaps)
				return t.id, snaps, true, nil
			}
		}
		return "", nil, true, nil
	}
	m.mu.Unlock()
	turn, snaps, err := m.db.LastUndoableTurn(ctx, session)
	if errors.Is(err, ErrNotFound) {
		return "", nil, false, nil
	}
	return turn, snaps, false, err
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
// first; nothing is restored when one is missing or damaged.
func (m *Manager) cmdUndo(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 0 {
		return CommandResult{}, usageErr("/undo")
	}
	turn, snaps, otr, err := m.lastTurn(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	if turn == "" {
		return CommandResult{Text: "nothing to undo: no turn of this session changed the workspace (or all were undone)"}, nil
	}
	chron, err := m.chronicleOf()
	if err != nil {
		return CommandResult{}, err
	}
	var paths []string
	for _, id := range snaps {
		snap, _, err := chron.Get(ctx, id)
		if err != nil {
			return CommandResult{}, fmt.Errorf("nothing was restored: snapshot #%d of turn %s: %w", id, turn, err)
		}
		for _, p := range snap.Paths {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	var undos []string
	restored, removed := 0, 0
	for i := len(snaps) - 1; i >= 0; i-- {
		res, err := workspace.AuditedRollback(ctx, m.opts.Audit, chron, snaps[i], workspace.Rollback{Session: c.session,
			Reason: fmt.Sprintf("/undo of turn %s: chronicle rollback to #%d", turn, snaps[i])})
		if res.Undo.ID > 0 {
			undos = append(undos, "#"+strconv.FormatInt(res.Undo.ID, 10))
		}
		if err != nil {
			return CommandResult{}, fmt.Errorf("undo of turn %s stopped at snapshot #%d (undo snapshots taken so far: %s): %w",
				turn, snaps[i], strings.Join(undos, ", "), err)
		}
		restored, removed = restored+res.Restored, removed+res.Removed
	}
	if err := m.markUndone(ctx, c.session, turn, otr); err != nil {
		return CommandResult{}, err
	}
	slices.Sort(paths)
	shown := paths
	if len(shown) > maxUndoPaths {
		shown = append(slices.Clone(shown[:maxUndoPaths]), fmt.Sprintf("(+%d)", len(paths)-maxUndoPaths))
	}
	m.setNotice(c.session, fmt.Sprintf("[Parallax: the user ran /undo: the changes your turn %s made to %s were reverted; "+
		"those files are as they were before that turn. Read them again before relying on them.]", turn, strings.Join(shown, ", ")))
	return CommandResult{Text: fmt.Sprintf("undid turn %s: %s as before it (%d written back, %d removed, from %d snapshot(s))\n"+
		"to revert the undo: parallax chronicle rollback each of %s, in that order",
		turn, strings.Join(shown, ", "), restored, removed, len(snaps), reversed(undos))}, nil
}

// reversed lists the undo snapshots in the order that reverts /undo: the
// last one taken first, so the first one (the state before /undo) wins.
func reversed(ids []string) string {
	r := slices.Clone(ids)
	slices.Reverse(r)
	return strings.Join(r, ", ")
}
