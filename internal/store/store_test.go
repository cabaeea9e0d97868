package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock advances one second per reading.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// openTest opens a fresh database in t.TempDir() with a fake clock.
func openTest(t *testing.T) (*DB, *fakeClock) {
	t.Helper()
	clk := newClock()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), ".parallax", "parallax.db"), WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db, clk
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if err := db.StartSession(ctx, "s1", "", nil); err != nil { // forces a WAL write
		t.Fatal(err)
	}
	dir := filepath.Dir(db.Path())
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("dir mode: got %v, want 0700", got)
	}
	for _, name := range []string{db.Path(), db.Path() + "-wal", db.Path() + "-shm"} {
		st, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode: got %v, want 0600", filepath.Base(name), got)
		}
	}
}

func TestOpenPragmas(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		pool   *sql.DB
		pragma string
		want   string
	}{
		{db.w, "journal_mode", "wal"},
		{db.w, "foreign_keys", "1"},
		{db.w, "synchronous", "2"},
		{db.w, "busy_timeout", "30000"},
		{db.r, "journal_mode", "wal"},
		{db.r, "foreign_keys", "1"},
		{db.r, "query_only", "1"},
		{db.r, "busy_timeout", "30000"},
	} {
		var got string
		if err := tc.pool.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.pragma, got, tc.want)
		}
	}
	if _, err := db.r.ExecContext(ctx, "DELETE FROM usage"); err == nil {
		t.Error("read pool accepted a write")
	}
	v, err := db.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() {
		t.Errorf("version: got %v, want %v", v, SchemaVersion())
	}
}

func TestOpenPathsAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tests := []struct {
		name, path string
		wantErr    string
	}{
		{"uri characters", filepath.Join(dir, "a?b#c%d", "x.db"), ""},
		{"relative", "rel/x.db", "must be absolute"},
		{"directory", dir, "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(ctx, tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.IncrementUsage(ctx, "2025-01-02", "k", 5); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tc.path); err != nil {
				t.Fatalf("database not at its path: %v", err)
			}
			db, err = Open(ctx, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if n, err := db.Usage(ctx, "2025-01-02", "k"); err != nil || n != 5 {
				t.Errorf("after reopen: got %v %v, want 5", n, err)
			}
		})
	}
}

func TestOpenRefusesSymlinkAndNarrowsMode(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	target := filepath.Join(dir, "target.db")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("symlink: got %v, want refusal", err)
	}
	wide := filepath.Join(dir, "wide.db")
	if err := os.WriteFile(wide, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, wide)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := os.Stat(wide)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", st.Mode().Perm())
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	if _, err := db.w.ExecContext(ctx, "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, db.Path())
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("got %v, want ErrTooNew", err)
	}
	if !strings.Contains(err.Error(), "99") || !strings.Contains(err.Error(), db.Path()) {
		t.Errorf("error should name the version and the file: %v", err)
	}
}

func TestMigrationFailureRollsBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	if err := prepareFile(path); err != nil {
		t.Fatal(err)
	}
	w, err := openPool(path, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	list := []migration{
		{1, "base", "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at INTEGER); CREATE TABLE a (x INTEGER);"},
		{2, "broken step", "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);"},
	}
	err = migrate(ctx, w, list, newClock().Now)
	if err == nil || !strings.Contains(err.Error(), "migration 2 (broken step)") {
		t.Fatalf("got %v, want error naming migration 2", err)
	}
	var v int
	if err := w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != 1 {
		t.Errorf("version: got %v, want 1", v)
	}
	var n int
	if err := w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'b'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("table b of the failed migration survived")
	}
	// A gap in the table is a programming error, caught before anything runs.
	if err := migrate(ctx, w, []migration{{2, "x", ""}}, newClock().Now); err == nil {
		t.Error("misnumbered migration table accepted")
	}
}

func TestMigrationsRecorded(t *testing.T) {
	db, _ := openTest(t)
	rows, err := db.r.QueryContext(context.Background(), "SELECT version, name FROM schema_migrations ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(migrations) {
		t.Errorf("got %v, want %d migrations recorded", got, len(migrations))
	}
}

// TestTurnEffectsMigration: a database made before turn effects existed
// (schema 8) with a turn in it opens at the newest schema, keeps the
// turn, and takes its effects.
func TestTurnEffectsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	if err := prepareFile(path); err != nil {
		t.Fatal(err)
	}
	w, err := openPool(path, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	if err := migrate(ctx, w, migrations[:8], newClock().Now); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO conversations (id, created_at, updated_at) VALUES ('c', 1, 1)",
		"INSERT INTO conversation_turns (conversation, id, seq, started_at) VALUES ('c', 't', 1, 1)",
		"INSERT INTO turn_snapshots (conversation, turn, snapshot) VALUES ('c', 't', 3)"} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, path, WithClock(newClock().Now))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(ctx); err != nil || v != SchemaVersion() || v < 9 {
		t.Fatalf("version %d (%v), want %d", v, err, SchemaVersion())
	}
	if err := db.AddTurnEffects(ctx, "c", "t", []TurnEffect{{EffectNetwork, "example.com:443"}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.LastUndoableTurn(ctx, "c")
	if err != nil || got.ID != "t" || !slices.Equal(got.Snapshots, []int64{3}) || len(got.Effects) != 1 {
		t.Fatalf("got %+v, %v: want turn t with its snapshot and the new effect", got, err)
	}
}
