//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mcpproxy

import (
	"fmt"
	"os"
	"runtime"
)

// lockFile fails closed where this package has no file locking: two
// proxies could otherwise lose each other's pins.
func lockFile(f *os.File) error {
	return fmt.Errorf("lock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}

func unlockFile(f *os.File) error {
	return fmt.Errorf("unlock %s: file locking is not implemented on %s", f.Name(), runtime.GOOS)
}
