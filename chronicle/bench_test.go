package chronicle

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSnapshotOneFile is the per-action cost: a write_file about to
// replace one changed file (flock, stat cache, copy, syncfs, one
// synchronous SQLite commit).
func BenchmarkSnapshotOneFile(b *testing.B) {
	for _, sync := range []bool{true, false} {
		b.Run("sync="+strconv.FormatBool(sync), func(b *testing.B) {
			c, ws, _ := newTest(b, Options{NoSync: !sync})
			p := filepath.Join(ws, "main.go")
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				must(b, os.WriteFile(p, []byte("package main // "+strconv.Itoa(i)+"\n"), 0o644))
				if _, err := c.Snapshot(ctx, []string{p}, "write_file", "s"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnapshotUnchangedTree: 1000 files already in the stat cache.
func BenchmarkSnapshotUnchangedTree(b *testing.B) {
	c, ws, _ := newTest(b, Options{})
	buildTree(b, ws, 1000)
	time.Sleep(c.racy + 100*time.Millisecond)
	ctx := context.Background()
	paths := abs(ws, "src")
	if _, err := c.Snapshot(ctx, paths, "warm", "s"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := c.Snapshot(ctx, paths, "again", "s")
		if err != nil {
			b.Fatal(err)
		}
		if s.Stats.CacheHits != 1000 {
			b.Fatalf("got %+v", s.Stats)
		}
	}
}
