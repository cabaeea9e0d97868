//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

// Package flock takes advisory whole-file locks (flock) across processes.
// This system has none: every call fails, and callers fail closed.
package flock

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
)

// ErrDeadline is the error of a lock not granted before the deadline.
var ErrDeadline = errors.New("lock not granted before the deadline")

// SetDeadline does nothing here: every Lock fails at once.
func SetDeadline(time.Time) {}

// Lock fails: file locking is not implemented here.
func Lock(f *os.File, _ bool) error {
	return fmt.Errorf("lock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}

// Unlock fails: file locking is not implemented here.
func Unlock(f *os.File) error {
	return fmt.Errorf("unlock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}
