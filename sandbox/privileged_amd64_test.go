//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// archPrivCalls are the privileged calls only amd64 has. iopl(3) would
// raise the I/O privilege level: 4 is invalid, refused after the check.
func archPrivCalls() []privCall {
	return []privCall{
		{"iopl", false, func() unix.Errno { return sys(unix.SYS_IOPL, 4) }},
		{"ioperm", false, func() unix.Errno { return sys(unix.SYS_IOPERM, 0, 0, 0) }},
		{"create_module", false, func() unix.Errno { return sys(unix.SYS_CREATE_MODULE, 0, 0) }},
		{"uselib", false, func() unix.Errno { return sys(unix.SYS_USELIB, cstr(missingPath)) }},
	}
}
