package chronicle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestPrune(t *testing.T) {
	c, ws, clk := newTest(t, Options{})
	ctx := context.Background()
	// Five snapshots an hour apart; each stores a new version of a.txt, and
	// all share shared.txt.
	for i := 1; i <= 5; i++ {
		writeTree(t, ws, spec{"a.txt": fmt.Sprintf("version %d\n", i), "shared.txt": "same\n"}, nil)
		_, err := c.Snapshot(ctx, abs(ws, "a.txt", "shared.txt"), "v"+strconv.Itoa(i), "s")
		must(t, err)
		must(t, os.Remove(filepath.Join(ws, "a.txt")))
		must(t, os.Remove(filepath.Join(ws, "shared.txt")))
		clk.Advance(time.Hour)
	}
	if n := objectFiles(t, c); n != 6 {
		t.Fatalf("objects: got %d, want 6", n)
	}
	// A stale staging file is collected too.
	must(t, os.WriteFile(filepath.Join(c.objects.tmp, "obj-stale"), []byte("x"), 0o600))

	steps := []struct {
		keep        int
		age         time.Duration
		wantDeleted int64
		wantObjects int // removed
		wantLeft    []int64
	}{
		{keep: 0, age: 0, wantDeleted: 0, wantObjects: 0, wantLeft: []int64{1, 2, 3, 4, 5}},
		{keep: 3, age: 0, wantDeleted: 2, wantObjects: 2, wantLeft: []int64{3, 4, 5}},
		{keep: 0, age: 150 * time.Minute, wantDeleted: 1, wantObjects: 1, wantLeft: []int64{4, 5}}, // #3 is 3h old
		{keep: 5, age: 0, wantDeleted: 0, wantObjects: 0, wantLeft: []int64{4, 5}},
	}
	for i, st := range steps {
		res, err := c.Prune(ctx, st.keep, st.age)
		must(t, err)
		if res.Snapshots != st.wantDeleted || res.Objects != st.wantObjects {
			t.Errorf("step %d: got %+v, want %d snapshots, %d objects", i, res, st.wantDeleted, st.wantObjects)
		}
		list, err := c.List(ctx)
		must(t, err)
		var ids []int64
		for _, s := range list {
			ids = append(ids, s.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(st.wantLeft) {
			t.Errorf("step %d: left %v, want %v", i, ids, st.wantLeft)
		}
		must(t, c.Verify(ctx, true))
	}
	if left, _ := os.ReadDir(c.objects.tmp); len(left) != 0 {
		t.Errorf("tmp not cleaned: %v", left)
	}
	// The rest still restores, and new snapshots chain on.
	_, err := c.Rollback(ctx, 4)
	must(t, err)
	b, err := os.ReadFile(filepath.Join(ws, "a.txt"))
	must(t, err)
	if string(b) != "version 4\n" {
		t.Errorf("got %q", b)
	}
	must(t, c.Verify(ctx, true))
	if _, err := c.Prune(ctx, -1, 0); err == nil {
		t.Error("negative keep accepted")
	}
	// Pruning everything keeps the anchor: the next snapshot verifies.
	_, err = c.Prune(ctx, 0, time.Nanosecond)
	must(t, err)
	_, err = c.Snapshot(ctx, abs(ws, "a.txt"), "after", "s")
	must(t, err)
	must(t, c.Verify(ctx, true))
	if _, err := c.Rollback(ctx, 5); !errors.Is(err, ErrNotFound) {
		t.Errorf("pruned snapshot: got %v, want ErrNotFound", err)
	}
}

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"36h", 36 * time.Hour, false},
		{"90m", 90 * time.Minute, false},
		{"30d", 30 * 24 * time.Hour, false},
		{"2w", 14 * 24 * time.Hour, false},
		{"0d", 0, false},
		{"", 0, true},
		{"d", 0, true},
		{"-1d", 0, true},
		{"-5h", 0, true},
		{"1.5d", 0, true},
		{"99999999999d", 0, true},
		{"3 days", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseAge(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseAge(%q): got %v %v, want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"36h", "30d", "2w", "1h30m", "-1d", "9223372036854775807d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAge(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseAge(%q) = %v, negative", s, d)
		}
	})
}

const childEnv = "PARALLAX_CHRONICLE_CHILD"

// TestConcurrentWriters: goroutines and another process snapshot, roll
// back and prune the same workspace at once; the flock and the store keep
// the chain linear and every object a snapshot needs present.
func TestConcurrentWriters(t *testing.T) {
	if ws := os.Getenv(childEnv); ws != "" {
		churn(t, ws, "proc")
		return
	}
	c, ws, _ := newTest(t, Options{})
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() { churn(t, ws, "g"+strconv.Itoa(g)) })
	}
	wg.Go(func() {
		cmd := exec.CommandContext(context.Background(), os.Args[0], "-test.run=^TestConcurrentWriters$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+ws)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("child: %v\n%s", err, out)
		}
	})
	wg.Go(func() {
		for range 5 {
			if _, err := c.Prune(context.Background(), 4, 0); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	must(t, c.Verify(context.Background(), true))
}

// churn writes, snapshots and rolls back its own file a few times.
func churn(t *testing.T, ws, name string) {
	ctx := context.Background()
	c, err := Open(ctx, ws, Options{})
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	p := filepath.Join(ws, name+".txt")
	for i := range 6 {
		if err := os.WriteFile(p, []byte(name+" "+strconv.Itoa(i)), 0o644); err != nil {
			t.Error(err)
			return
		}
		s, err := c.Snapshot(ctx, []string{p}, "churn", name)
		if err != nil {
			t.Error(err)
			return
		}
		if i%3 == 2 {
			// The snapshot may be pruned meanwhile; anything else is a bug.
			if _, err := c.Rollback(ctx, s.ID); err != nil && !errors.Is(err, ErrNotFound) {
				t.Error(err)
			}
		}
	}
}
