package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Activity is the IFC label of a path the agent wrote: the most sensitive
// data that has flowed into it, where from and by which session.
type Activity struct {
	Path      string
	Level     int
	Labels    []string // content labels (DLP kinds), sorted, never data
	Source    string
	Session   string
	UpdatedAt time.Time
}

// maxLabels bounds the labels kept per path.
const maxLabels = 16

// mergeLabels returns the sorted union of a and b, at most maxLabels.
func mergeLabels(a, b []string) []string {
	out := append(append([]string(nil), a...), b...)
	sort.Strings(out)
	out = slices.Compact(out)
	if len(out) > maxLabels {
		out = out[:maxLabels]
	}
	return out
}

// UpsertActivity records a write of level data into a.Path. The stored
// level never drops: a lower level only refreshes UpdatedAt. Source and
// Session follow the write that set the current (highest) level.
func (db *DB) UpsertActivity(ctx context.Context, a Activity) error {
	if a.Path == "" {
		return fmt.Errorf("upsert activity: empty path")
	}
	if a.Level < MinLevel || a.Level > MaxLevel {
		return fmt.Errorf("upsert activity %s: level %d outside %d..%d", a.Path, a.Level, MinLevel, MaxLevel)
	}
	return db.write(ctx, "upsert activity "+a.Path, func(tx *sql.Tx) error {
		var old string
		err := tx.QueryRowContext(ctx, "SELECT labels FROM ifc_activity WHERE path = ?", a.Path).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var have []string
		if old != "" {
			if err := json.Unmarshal([]byte(old), &have); err != nil {
				return fmt.Errorf("labels of %s: %w", a.Path, err)
			}
		}
		labels, err := json.Marshal(mergeLabels(have, a.Labels))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO ifc_activity (path, level, labels, source, session, updated_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (path) DO UPDATE SET
	source     = CASE WHEN excluded.level > level THEN excluded.source ELSE source END,
	session    = CASE WHEN excluded.level > level THEN excluded.session ELSE session END,
	level      = max(level, excluded.level),
	labels     = excluded.labels,
	updated_at = excluded.updated_at`,
			a.Path, a.Level, string(labels), a.Source, a.Session, nanos(db.now()))
		return err
	})
}

// activityCols are the columns scanActivity reads.
const activityCols = "path, level, labels, source, session, updated_at"

// ActivityUnder returns the labels at level min or above of p and of every
// path below it, ordered by path; "/" covers the whole table.
func (db *DB) ActivityUnder(ctx context.Context, p string, min int) ([]Activity, error) {
	q, args := underQuery(p, min)
	rows, err := db.r.QueryContext(ctx, "SELECT "+activityCols+" FROM ifc_activity WHERE "+q+" ORDER BY path", args...)
	if err != nil {
		return nil, fmt.Errorf("activity under %s: %w", p, err)
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		a, err := scanActivity(rows)
		if err != nil {
			return nil, fmt.Errorf("activity under %s: %w", p, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("activity under %s: %w", p, err)
	}
	return out, nil
}

// TopActivity returns the label of the highest level at or above min for
// p (and, with below, any path below p); ok is false when there is none.
// Ties go to the first path in order.
func (db *DB) TopActivity(ctx context.Context, p string, below bool, min int) (Activity, bool, error) {
	q, args := "path = ? AND level >= ?", []any{p, min}
	if below {
		q, args = underQuery(p, min)
	}
	row := db.r.QueryRowContext(ctx, "SELECT "+activityCols+" FROM ifc_activity WHERE "+q+" ORDER BY level DESC, path LIMIT 1", args...)
	a, err := scanActivity(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Activity{}, false, nil
	}
	if err != nil {
		return Activity{}, false, fmt.Errorf("top activity under %s: %w", p, err)
	}
	return a, true, nil
}

// TopActivityMatching is TopActivity over p and every path below it,
// counting only the paths match accepts. Candidates are read highest
// level first (ties by path), so the first accepted one is the answer;
// match sees each candidate's path once and must not use db.
func (db *DB) TopActivityMatching(ctx context.Context, p string, min int, match func(string) bool) (Activity, bool, error) {
	q, args := underQuery(p, min)
	rows, err := db.r.QueryContext(ctx, "SELECT "+activityCols+" FROM ifc_activity WHERE "+q+" ORDER BY level DESC, path", args...)
	if err != nil {
		return Activity{}, false, fmt.Errorf("top activity under %s: %w", p, err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanActivity(rows)
		if err != nil {
			return Activity{}, false, fmt.Errorf("top activity under %s: %w", p, err)
		}
		if match(a.Path) {
			return a, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return Activity{}, false, fmt.Errorf("top activity under %s: %w", p, err)
	}
	return Activity{}, false, nil
}

// underQuery selects p and the paths below it ("p/…": between "p/" and
// "p0", '0' being the byte after '/') at level min or above.
func underQuery(p string, min int) (string, []any) {
	if p == "/" {
		return "level >= ?", []any{min}
	}
	p = strings.TrimRight(p, "/")
	return "(path = ? OR (path >= ? AND path < ?)) AND level >= ?", []any{p, p + "/", p + "0", min}
}

// GetActivity returns the label of path; ok is false when none is stored.
func (db *DB) GetActivity(ctx context.Context, path string) (a Activity, ok bool, err error) {
	row := db.r.QueryRowContext(ctx, "SELECT "+activityCols+" FROM ifc_activity WHERE path = ?", path)
	a, err = scanActivity(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Activity{}, false, nil
	}
	if err != nil {
		return Activity{}, false, fmt.Errorf("get activity %s: %w", path, err)
	}
	return a, true, nil
}

// ListActivity returns every label, ordered by path.
func (db *DB) ListActivity(ctx context.Context) ([]Activity, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+activityCols+" FROM ifc_activity ORDER BY path")
	if err != nil {
		return nil, fmt.Errorf("list activity: %w", err)
	}
	defer rows.Close()
	var out []Activity
	for rows.Next() {
		a, err := scanActivity(rows)
		if err != nil {
			return nil, fmt.Errorf("list activity: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list activity: %w", err)
	}
	return out, nil
}

// DeleteActivity removes the label of path; it reports whether one existed.
func (db *DB) DeleteActivity(ctx context.Context, path string) (bool, error) {
	var n int64
	err := db.write(ctx, "delete activity "+path, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM ifc_activity WHERE path = ?", path)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// SweepActivity removes the labels of paths for which exists reports
// false and returns them. exists runs outside any transaction (it may
// touch the filesystem); a row updated while it ran is kept.
func (db *DB) SweepActivity(ctx context.Context, exists func(path string) bool) ([]Activity, error) {
	all, err := db.ListActivity(ctx)
	if err != nil {
		return nil, fmt.Errorf("sweep activity: %w", err)
	}
	var gone []Activity
	for _, a := range all {
		if !exists(a.Path) {
			gone = append(gone, a)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	var removed []Activity
	err = db.write(ctx, "sweep activity", func(tx *sql.Tx) error {
		removed = removed[:0]
		for _, a := range gone {
			res, err := tx.ExecContext(ctx, "DELETE FROM ifc_activity WHERE path = ? AND updated_at = ? AND level = ?",
				a.Path, nanos(a.UpdatedAt), a.Level)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n > 0 {
				removed = append(removed, a)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return removed, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanActivity(s scanner) (Activity, error) {
	var a Activity
	var at int64
	var labels string
	if err := s.Scan(&a.Path, &a.Level, &labels, &a.Source, &a.Session, &at); err != nil {
		return Activity{}, err
	}
	if labels != "" && labels != "[]" {
		if err := json.Unmarshal([]byte(labels), &a.Labels); err != nil {
			return Activity{}, fmt.Errorf("labels of %s: %w", a.Path, err)
		}
	}
	a.UpdatedAt = fromNanos(at)
	return a, nil
}
