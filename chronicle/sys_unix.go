//go:build unix

package chronicle

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openReadFlags open a file for capture without following a final
// symlink and without blocking on a FIFO swapped in after Lstat.
const openReadFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// lockFile takes an flock on path: exclusive for writers (Snapshot,
// Rollback, Prune), shared for readers (Diff, Verify). flock belongs to
// the open file description, so it excludes other goroutines of this
// process as well as other processes.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how) //nolint:gosec // fd fits an int
		if err != syscall.EINTR {             //nolint:errorlint // raw errno
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}

// isCrossDevice reports a rename across filesystems.
func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
