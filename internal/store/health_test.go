package store

import (
	"context"
	"fmt"
	"testing"
)

// A database that cannot grow (max_page_count: SQLite's own "disk full",
// SQLITE_FULL) fails its writes and Check until it has room again; then
// both work without reopening.
func TestCheckFollowsAFullDatabase(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	if err := db.Check(ctx); err != nil {
		t.Fatalf("check of a fresh database: %v", err)
	}
	var pages int
	if err := db.w.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 100000 && werr == nil; i++ {
		werr = db.RaiseTaint(ctx, fmt.Sprintf("session-%06d", i), 3, "content:aws_secret_access_key")
	}
	if werr == nil {
		t.Fatal("the database never filled up")
	}
	if err := db.Check(ctx); err == nil {
		t.Fatalf("check of a full database: got nil, want the failure (last write: %v)", werr)
	}
	if _, err := db.w.ExecContext(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatalf("check once there is room: %v", err)
	}
	if err := db.RaiseTaint(ctx, "after", 4, "observe_failed"); err != nil {
		t.Fatalf("write once there is room: %v", err)
	}
	var n int
	if err := db.r.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version < 0").Scan(&n); err != nil || n != 0 {
		t.Errorf("the probe left %d rows (%v)", n, err)
	}
}
