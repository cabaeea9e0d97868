package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

const (
	childEnv   = "PARALLAX_STORE_CHILD_DB"
	childIDEnv = "PARALLAX_STORE_CHILD_ID"
	opsPerUnit = 25
)

// workload is what every goroutine and every child process does: raise
// taint on its own sub-session, label a path and bump shared counters.
// Each operation is its own write transaction.
func workload(ctx context.Context, path, id string) error {
	db, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.StartSession(ctx, "root", "", nil); err != nil {
		return err
	}
	sub := "sub-" + id
	if err := db.StartSession(ctx, sub, "root", nil); err != nil {
		return err
	}
	for i := range opsPerUnit {
		if _, err := db.IncrementUsage(ctx, "2025-03-01", "calls", 1); err != nil {
			return err
		}
		if err := db.RaiseTaint(ctx, sub, i%5, fmt.Sprintf("content:%d", i%3)); err != nil {
			return err
		}
		if err := db.UpsertActivity(ctx, Activity{Path: "/w/" + id, Level: i % 5, Source: "x", Session: sub}); err != nil {
			return err
		}
		if _, err := db.MaxTaint(ctx, "root"); err != nil {
			return err
		}
	}
	return nil
}

// TestConcurrentWriters runs the workload in goroutines and in separate
// processes (this test binary re-executed) against one new database file,
// so migrations race too. No SQLITE_BUSY may surface and no increment may
// be lost.
func TestConcurrentWriters(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		if err := workload(context.Background(), path, os.Getenv(childIDEnv)); err != nil {
			t.Fatal(err)
		}
		return
	}
	const goroutines, procs = 3, 3
	path := filepath.Join(t.TempDir(), ".parallax", "parallax.db")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestConcurrentWriters$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+path, childIDEnv+"=p"+strconv.Itoa(i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %w\n%s", i, err, out)
			}
		}()
	}
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := workload(ctx, path, "g"+strconv.Itoa(i)); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n, err := db.Usage(ctx, "2025-03-01", "calls")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64((goroutines + procs) * opsPerUnit); n != want {
		t.Errorf("calls: got %v, want %v", n, want)
	}
	if lvl, _ := db.MaxTaint(ctx, "root"); lvl != 4 {
		t.Errorf("root taint: got %v, want 4", lvl)
	}
	ts, _ := db.Taints(ctx, "root")
	if want := (goroutines + procs) * 3; len(ts) != want {
		t.Errorf("root taint records: got %v, want %v", len(ts), want)
	}
	acts, _ := db.ListActivity(ctx)
	if len(acts) != goroutines+procs {
		t.Errorf("activity rows: got %v, want %v", len(acts), goroutines+procs)
	}
}
