//go:build linux && !amd64 && !arm64

package sandbox

import "golang.org/x/sys/unix"

type privCall struct {
	name     string
	capGated bool
	call     func() unix.Errno
}

// privCalls is empty where the package has no syscall table.
func privCalls() []privCall { return nil }
