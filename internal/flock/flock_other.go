//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

// Package flock takes advisory whole-file locks (flock) across processes.
// This system has none: every call fails, and callers fail closed.
package flock

import (
	"fmt"
	"os"
	"runtime"
)

// Lock fails: file locking is not implemented here.
func Lock(f *os.File, _ bool) error {
	return fmt.Errorf("lock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}

// Unlock fails: file locking is not implemented here.
func Unlock(f *os.File) error {
	return fmt.Errorf("unlock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}
