package store

import (
	"context"
	"strconv"
	"testing"
)

// The per-action hot paths: a taint raise (one synchronous write
// transaction through a parent chain), a taint read, a budget increment.
func BenchmarkRaiseTaint(b *testing.B) {
	db, _ := openBench(b)
	ctx := context.Background()
	for _, s := range [][2]string{{"root", ""}, {"mid", "root"}, {"leaf", "mid"}} {
		if err := db.StartSession(ctx, s[0], s[1], nil); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		i++
		if err := db.RaiseTaint(ctx, "leaf", i%5, "content:"+strconv.Itoa(i%7)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMaxTaint(b *testing.B) {
	db, _ := openBench(b)
	ctx := context.Background()
	for i := range 50 {
		if err := db.RaiseTaint(ctx, "s", i%5, "path:/w/"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := db.MaxTaint(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIncrementUsage(b *testing.B) {
	db, _ := openBench(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := db.IncrementUsage(ctx, "2025-03-01", "judge_calls", 1); err != nil {
			b.Fatal(err)
		}
	}
}

func openBench(b *testing.B) (*DB, *fakeClock) {
	b.Helper()
	clk := newClock()
	db, err := Open(context.Background(), b.TempDir()+"/parallax.db", WithClock(clk.Now))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return db, clk
}
