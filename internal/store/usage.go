package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Day is the usage table's day key for t: its UTC date, "2006-01-02".
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// validDay reports whether day is a real date spelled "2006-01-02".
func validDay(day string) bool {
	t, err := time.Parse(time.DateOnly, day)
	return err == nil && t.Format(time.DateOnly) == day
}

// IncrementUsage adds n (which may be negative, to refund) to the counter
// key of day and returns the new count. Counters start at zero.
func (db *DB) IncrementUsage(ctx context.Context, day, key string, n int64) (int64, error) {
	if !validDay(day) {
		return 0, fmt.Errorf("increment usage %s: day %q is not YYYY-MM-DD", key, day)
	}
	if key == "" {
		return 0, fmt.Errorf("increment usage on %s: empty key", day)
	}
	var count int64
	err := db.write(ctx, "increment usage "+day+" "+key, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO usage (day, key, count) VALUES (?, ?, ?)
ON CONFLICT (day, key) DO UPDATE SET count = count + excluded.count RETURNING count`, day, key, n).Scan(&count)
	})
	return count, err
}

// Usage returns the counter key of day (0 when never incremented).
func (db *DB) Usage(ctx context.Context, day, key string) (int64, error) {
	var n int64
	err := db.r.QueryRowContext(ctx, "SELECT count FROM usage WHERE day = ? AND key = ?", day, key).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read usage %s %s: %w", day, key, err)
	}
	return n, nil
}

// UsageDay returns every counter of day.
func (db *DB) UsageDay(ctx context.Context, day string) (map[string]int64, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT key, count FROM usage WHERE day = ?", day)
	if err != nil {
		return nil, fmt.Errorf("read usage of %s: %w", day, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("read usage of %s: %w", day, err)
		}
		out[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read usage of %s: %w", day, err)
	}
	return out, nil
}
