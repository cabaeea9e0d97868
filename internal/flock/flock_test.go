//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestExclusiveLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := Lock(a, true); err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		_ = Lock(b, false)
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a shared lock was granted while an exclusive one was held")
	case <-time.After(50 * time.Millisecond):
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the shared lock was not granted after the exclusive one was released")
	}
	if err := Unlock(b); err != nil {
		t.Fatal(err)
	}
}

// With a deadline set, a lock another holder keeps is given up at the
// deadline with ErrDeadline, never waited for without end; one that is
// free, or freed before the deadline, is granted.
func TestLockGivesUpAtTheDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	holder, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Lock(holder, true); err != nil {
		t.Fatal(err)
	}
	SetDeadline(time.Now().Add(100 * time.Millisecond))
	defer SetDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { done <- Lock(f, true) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDeadline) {
			t.Fatalf("got %v, want ErrDeadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was waited for past the deadline")
	}
	// Freed before the deadline: granted.
	SetDeadline(time.Now().Add(10 * time.Second))
	go func() { done <- Lock(f, true) }()
	time.Sleep(20 * time.Millisecond)
	if err := Unlock(holder); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("a lock freed before the deadline: %v", err)
	}
}
