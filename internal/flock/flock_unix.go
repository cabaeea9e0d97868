//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

// Package flock takes advisory whole-file locks (flock) across processes:
// the audit chain, the MCP pins file and the store's first open use it.
// Where flock does not exist, locking fails: callers fail closed.
package flock

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrDeadline is the error of a lock not granted before the process's
// deadline (SetDeadline).
var ErrDeadline = errors.New("lock not granted before the deadline")

// deadline is the process's lock deadline in Unix nanoseconds; 0 is none.
var deadline atomic.Int64

// SetDeadline makes every later Lock of this process give up at t with
// ErrDeadline, instead of waiting until granted; the zero time waits
// again. A process that must answer its host in time (the Claude Code
// hook) sets it once, below the host's own timeout: a lock that another
// process holds (an agent's background one-liner) then ends the wait,
// never the answer.
func SetDeadline(t time.Time) {
	if t.IsZero() {
		deadline.Store(0)
		return
	}
	deadline.Store(t.UnixNano())
}

// Lock takes a flock on f, exclusive or shared, waiting until granted
// (or until the process's deadline, if one is set) and retrying when a
// signal interrupts the wait.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	end := deadline.Load()
	if end != 0 {
		how |= syscall.LOCK_NB
	}
	wait := 200 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), how) //nolint:gosec // a file descriptor fits in int
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case end != 0 && errors.Is(err, syscall.EWOULDBLOCK):
			left := time.Until(time.Unix(0, end))
			if left <= 0 {
				return fmt.Errorf("lock %s: %w", f.Name(), ErrDeadline)
			}
			time.Sleep(min(wait, left))
			wait = min(2*wait, 20*time.Millisecond)
			continue
		}
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
}

// Unlock releases the flock on f (closing f releases it too).
func Unlock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil { //nolint:gosec // a file descriptor fits in int
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
