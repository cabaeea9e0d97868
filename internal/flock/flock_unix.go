//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

// Package flock takes advisory whole-file locks (flock) across processes:
// the audit chain, the MCP pins file and the store's first open use it.
// Where flock does not exist, locking fails: callers fail closed.
package flock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes a flock on f, exclusive or shared, waiting until granted and
// retrying when a signal interrupts the wait.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how) //nolint:gosec // a file descriptor fits in int
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return nil
	}
}

// Unlock releases the flock on f (closing f releases it too).
func Unlock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil { //nolint:gosec // a file descriptor fits in int
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
