//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mcpproxy

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory flock on f, retrying when a signal
// interrupts the wait.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX) //nolint:gosec // a file descriptor fits in int
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
