//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package audit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an advisory flock on f: exclusive for writers, shared for
// readers. It blocks until granted and retries when a signal interrupts it.
func lockFile(f *os.File, exclusive bool) error {
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

// unlockFile releases the flock on f.
func unlockFile(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil { //nolint:gosec // a file descriptor fits in int
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
