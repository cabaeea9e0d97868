package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Taint levels are plain integers here; the ifc package owns their names
// (public < internal < confidential < restricted < critical).
const (
	MinLevel = 0
	MaxLevel = 4
)

// maxAncestors bounds the parent chain walked when taint propagates. The
// schema makes cycles impossible (a parent must exist first and never
// changes); the bound is a second fence.
const maxAncestors = 64

// ErrSessionParent is returned when a session is started again with a
// different parent: re-parenting would let a sub-agent's taint escape.
var ErrSessionParent = errors.New("session already exists with another parent")

// Session is one agent session; Parent is set for sub-agents.
type Session struct {
	ID        string
	Parent    string // "" for a top-level session
	StartedAt time.Time
	EndedAt   time.Time // zero while the session runs
	Meta      json.RawMessage
}

// Taint is one reason a session is tainted. Origin is the session where
// the data was seen; it differs from Session for taint propagated from a
// sub-agent.
type Taint struct {
	Session string
	Origin  string
	Source  string // e.g. "path:/w/.env", "content:aws_access_key"
	Level   int
	At      time.Time
}

// StartSession records a session. It is idempotent: starting an existing
// session with the same parent does nothing (meta is kept from the first
// start); a different parent is ErrSessionParent. The parent must exist.
func (db *DB) StartSession(ctx context.Context, id, parent string, meta json.RawMessage) error {
	if id == "" {
		return fmt.Errorf("start session: empty id")
	}
	if len(meta) == 0 {
		meta = json.RawMessage("{}")
	}
	if !json.Valid(meta) {
		return fmt.Errorf("start session %s: meta is not valid JSON", id)
	}
	return db.write(ctx, "start session "+id, func(tx *sql.Tx) error {
		var cur sql.NullString
		err := tx.QueryRowContext(ctx, "SELECT parent FROM sessions WHERE id = ?", id).Scan(&cur)
		if err == nil {
			if cur.String != parent {
				return fmt.Errorf("%w (have %q, asked %q)", ErrSessionParent, cur.String, parent)
			}
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if parent != "" {
			var one int
			err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", parent).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("parent session %s: %w", parent, ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO sessions (id, parent, started_at, meta) VALUES (?, ?, ?, ?)",
			id, nullString(parent), nanos(db.now()), string(meta))
		return err
	})
}

// EndSession stamps the session's end; ending it again keeps the first
// stamp. An unknown session is ErrNotFound.
func (db *DB) EndSession(ctx context.Context, id string) error {
	return db.write(ctx, "end session "+id, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL", nanos(db.now()), id)
		return err
	})
}

// GetSession returns one session, or ErrNotFound.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	var s Session
	var parent sql.NullString
	var started int64
	var ended sql.NullInt64
	var meta string
	err := db.r.QueryRowContext(ctx, "SELECT id, parent, started_at, ended_at, meta FROM sessions WHERE id = ?", id).
		Scan(&s.ID, &parent, &started, &ended, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("get session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	s.Parent = parent.String
	s.StartedAt = fromNanos(started)
	s.EndedAt = fromNullNanos(ended)
	s.Meta = json.RawMessage(meta)
	return s, nil
}

// RaiseTaint records that session saw data of level from source, and
// propagates the same record to every ancestor: what a sub-agent saw, its
// parent may now hold. An unknown session is created as a top-level one,
// so taint is never lost for lack of a StartSession. Levels only rise: a
// lower level for a known (origin, source) keeps the higher one.
func (db *DB) RaiseTaint(ctx context.Context, session string, level int, source string) error {
	if session == "" {
		return fmt.Errorf("raise taint: empty session")
	}
	if level < MinLevel || level > MaxLevel {
		return fmt.Errorf("raise taint of session %s: level %d outside %d..%d", session, level, MinLevel, MaxLevel)
	}
	if source == "" {
		return fmt.Errorf("raise taint of session %s: empty source", session)
	}
	return db.write(ctx, "raise taint of session "+session, func(tx *sql.Tx) error {
		at := nanos(db.now())
		if _, err := tx.ExecContext(ctx, "INSERT INTO sessions (id, started_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", session, at); err != nil {
			return err
		}
		chain, err := ancestry(ctx, tx, session)
		if err != nil {
			return err
		}
		for _, s := range chain {
			if _, err := tx.ExecContext(ctx, `INSERT INTO session_taint (session, origin, source, level, at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (session, origin, source) DO UPDATE SET level = max(level, excluded.level), at = excluded.at`,
				s, session, source, level, at); err != nil {
				return err
			}
		}
		return nil
	})
}

// ancestry returns session followed by its parent, grandparent, …
func ancestry(ctx context.Context, tx *sql.Tx, session string) ([]string, error) {
	chain := []string{session}
	seen := map[string]bool{session: true}
	cur := session
	for range maxAncestors {
		var parent sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT parent FROM sessions WHERE id = ?", cur).Scan(&parent); err != nil {
			return nil, fmt.Errorf("walk parents of %s: %w", cur, err)
		}
		if !parent.Valid {
			return chain, nil
		}
		if seen[parent.String] {
			return nil, fmt.Errorf("walk parents of %s: cycle at %s", session, parent.String)
		}
		seen[parent.String] = true
		chain = append(chain, parent.String)
		cur = parent.String
	}
	return nil, fmt.Errorf("walk parents of %s: more than %d ancestors", session, maxAncestors)
}

// MaxTaint is the highest level recorded for the session (its own and its
// sub-agents'); 0 when nothing was recorded or the session is unknown.
func (db *DB) MaxTaint(ctx context.Context, session string) (int, error) {
	var lvl sql.NullInt64
	if err := db.r.QueryRowContext(ctx, "SELECT max(level) FROM session_taint WHERE session = ?", session).Scan(&lvl); err != nil {
		return 0, fmt.Errorf("read taint of session %s: %w", session, err)
	}
	return int(lvl.Int64), nil
}

// TaintOf is the session's highest taint level and the source that
// carried it (the earliest on a tie); 0 and "" for a clean or unknown
// session.
func (db *DB) TaintOf(ctx context.Context, session string) (int, string, error) {
	var lvl int
	var src string
	err := db.r.QueryRowContext(ctx, `SELECT level, source FROM session_taint WHERE session = ?
ORDER BY level DESC, at, source LIMIT 1`, session).Scan(&lvl, &src)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("read taint of session %s: %w", session, err)
	}
	return lvl, src, nil
}

// EnsureSession records a top-level session if it is not known yet; a
// known one is left as it is.
func (db *DB) EnsureSession(ctx context.Context, id string) error {
	if id == "" {
		return fmt.Errorf("ensure session: empty id")
	}
	return db.write(ctx, "ensure session "+id, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO sessions (id, started_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
			id, nanos(db.now()))
		return err
	})
}

// Taints lists the session's taint records, highest level first.
func (db *DB) Taints(ctx context.Context, session string) ([]Taint, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT session, origin, source, level, at FROM session_taint
WHERE session = ? ORDER BY level DESC, origin, source`, session)
	if err != nil {
		return nil, fmt.Errorf("list taint of session %s: %w", session, err)
	}
	defer rows.Close()
	var out []Taint
	for rows.Next() {
		var t Taint
		var at int64
		if err := rows.Scan(&t.Session, &t.Origin, &t.Source, &t.Level, &at); err != nil {
			return nil, fmt.Errorf("list taint of session %s: %w", session, err)
		}
		t.At = fromNanos(at)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list taint of session %s: %w", session, err)
	}
	return out, nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
