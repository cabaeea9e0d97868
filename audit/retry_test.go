package audit

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"
)

// A failed write or fsync (a full disk) stops appends only until the disk
// takes writes again: the log retries by itself, records the gap, and the
// chain still verifies.
func TestAppendRecoversAfterDiskFull(t *testing.T) {
	for _, op := range []string{"write", "sync"} {
		t.Run(op, func(t *testing.T) {
			path := tempLog(t)
			var full atomic.Bool
			l, err := Open(path, Options{Clock: newClock().Now, Fault: func(o string) error {
				if o == op && full.Load() {
					return syscall.ENOSPC
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			ctx := context.Background()
			if _, err := l.Append(ctx, sampleEvent(1)); err != nil {
				t.Fatal(err)
			}
			full.Store(true)
			for i := 2; i <= 3; i++ {
				if _, err := l.Append(ctx, sampleEvent(i)); !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("append %d on a full disk: got %v, want ENOSPC", i, err)
				}
			}
			if err := l.Check(ctx); err == nil {
				t.Fatal("check on a full disk: got nil, want the failure")
			}
			full.Store(false)
			if err := l.Check(ctx); err != nil {
				t.Fatalf("check once space is back: %v", err)
			}
			e, err := l.Append(ctx, sampleEvent(4))
			if err != nil {
				t.Fatalf("append once space is back: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(path, VerifyOptions{}); err != nil {
				t.Fatalf("the chain does not verify after the recovery: %v", err)
			}
			var rec []Entry
			if err := Scan(path, Filter{Type: ShieldError}, func(e Entry) error { rec = append(rec, e); return nil }); err != nil {
				t.Fatal(err)
			}
			// After a failed fsync the bytes of each attempt stay in the
			// chain (their appends were answered as errors); after a failed
			// write nothing of them does.
			if len(rec) == 0 || op == "write" && len(rec) != 1 || rec[len(rec)-1].Seq >= e.Seq {
				t.Fatalf("recovery entries: got %+v, want %s entries before seq %d", rec, CodeRecovered, e.Seq)
			}
			for _, r := range rec {
				if r.Detail.Code != CodeRecovered {
					t.Errorf("got a ShieldError %q, want only %s", r.Detail.Code, CodeRecovered)
				}
			}
		})
	}
}
