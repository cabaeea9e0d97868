//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package audit

import (
	"fmt"
	"os"
	"runtime"
)

// lockFile fails closed where this package has no file locking: without
// it, two processes could interleave appends and fork the chain.
func lockFile(f *os.File, _ bool) error {
	return fmt.Errorf("lock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}

func unlockFile(f *os.File) error {
	return fmt.Errorf("unlock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}
