//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock

import (
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
