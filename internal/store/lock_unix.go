//go:build unix

package store

import (
	"fmt"
	"os"
	"syscall"
)

// setupLock takes an exclusive lock on path+".lock" for the setup of a
// connection (journal mode, migrations): SQLite cannot switch a brand-new
// file to WAL from several processes at once without I/O errors. The
// returned function releases it.
func setupLock(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open setup lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("take setup lock: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
