package store

import (
	"fmt"
	"os"

	"github.com/parallax/parallax/internal/flock"
)

// setupLock takes an exclusive lock on path+".lock" for the setup of a
// connection (journal mode, migrations): SQLite cannot switch a brand-new
// file to WAL from several processes at once without I/O errors. The
// returned function releases it. Where flock does not exist, setup goes
// on without it, relying on SQLite's own locking and the retry in Open.
func setupLock(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open setup lock: %w", err)
	}
	if err := flock.Lock(f, true); err != nil {
		_ = f.Close()
		if flockMissing {
			return func() {}, nil
		}
		return nil, fmt.Errorf("take setup lock: %w", err)
	}
	return func() {
		_ = flock.Unlock(f)
		_ = f.Close()
	}, nil
}
