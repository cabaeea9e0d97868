//go:build linux && (amd64 || arm64)

package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// privCall is one privileged syscall made with harmless arguments: when
// the kernel lets it through, it fails on an argument (EINVAL, EFAULT,
// ENOENT, EBADF), finds nothing to do, or is not built in (ENOSYS); only
// a refusal answers EPERM. capGated says the kernel checks the
// capability before any argument, so dropping capabilities alone must
// also turn it into EPERM.
type privCall struct {
	name     string
	capGated bool
	call     func() unix.Errno
}

// sys makes a raw syscall and returns its errno (0 on success).
func sys(nr uintptr, args ...uintptr) unix.Errno {
	var a [6]uintptr
	copy(a[:], args)
	_, _, errno := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	return errno
}

// cstr returns a pointer to a NUL-terminated copy of s.
func cstr(s string) uintptr {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return uintptr(unsafe.Pointer(p))
}

const missingPath = "/nonexistent/parallax-sandbox-probe"

// privCalls lists what both filters refuse, each called so that nothing
// changes should it be let through. personality's argument is the one
// refused value here (ADDR_NO_RANDOMIZE).
func privCalls() []privCall {
	name := make([]byte, 65) // one past __NEW_UTS_LEN: EINVAL once past the capability check
	calls := []privCall{
		{"reboot", true, func() unix.Errno { return sys(unix.SYS_REBOOT, 0, 0, unix.LINUX_REBOOT_CMD_CAD_OFF) }}, // bad magic
		{"kexec_load", false, func() unix.Errno { return sys(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0x8000) }},            // unknown flag
		{"kexec_file_load", false, func() unix.Errno { return sys(unix.SYS_KEXEC_FILE_LOAD, ^uintptr(0), ^uintptr(0), 0, 0, 0x80000000) }},
		{"init_module", true, func() unix.Errno { return sys(unix.SYS_INIT_MODULE, 0, 0, cstr("")) }},
		{"finit_module", true, func() unix.Errno { return sys(unix.SYS_FINIT_MODULE, ^uintptr(0), cstr(""), 0) }},
		{"delete_module", true, func() unix.Errno { return sys(unix.SYS_DELETE_MODULE, cstr("parallax_no_such_module"), 0) }},
		{"sethostname", true, func() unix.Errno {
			return sys(unix.SYS_SETHOSTNAME, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)))
		}},
		{"setdomainname", true, func() unix.Errno {
			return sys(unix.SYS_SETDOMAINNAME, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)))
		}},
		{"syslog", true, func() unix.Errno { return sys(unix.SYS_SYSLOG, 100, 0, 0) }}, // no such action
		{"swapon", true, func() unix.Errno { return sys(unix.SYS_SWAPON, cstr(missingPath), 0) }},
		{"swapoff", true, func() unix.Errno { return sys(unix.SYS_SWAPOFF, cstr(missingPath)) }},
		{"acct", true, func() unix.Errno { return sys(unix.SYS_ACCT, cstr(missingPath)) }},
		{"settimeofday", true, func() unix.Errno { return sys(unix.SYS_SETTIMEOFDAY, 0, 0) }}, // sets nothing
		{"clock_settime", false, func() unix.Errno { return sys(unix.SYS_CLOCK_SETTIME, unix.CLOCK_REALTIME, 0) }},
		{"clock_adjtime", false, func() unix.Errno { return sys(unix.SYS_CLOCK_ADJTIME, unix.CLOCK_REALTIME, 0) }},
		{"adjtimex", false, func() unix.Errno { return sys(unix.SYS_ADJTIMEX, 0) }},
		{"quotactl", false, func() unix.Errno { return sys(unix.SYS_QUOTACTL, 0, 0, 0, 0) }},
		{"quotactl_fd", false, func() unix.Errno { return sys(unix.SYS_QUOTACTL_FD, ^uintptr(0), 0, 0, 0) }},
		{"perf_event_open", false, func() unix.Errno { return sys(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0) }},
		{"userfaultfd", false, func() unix.Errno { return sys(unix.SYS_USERFAULTFD, 0x7fff0000) }},
		{"lookup_dcookie", false, func() unix.Errno { return sys(unix.SYS_LOOKUP_DCOOKIE, 0, 0, 0) }},
		{"open_by_handle_at", false, func() unix.Errno { return sys(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, 0) }},
		{"vhangup", true, func() unix.Errno { return sys(unix.SYS_VHANGUP) }}, // the child has no terminal (setsid)
		{"nfsservctl", false, func() unix.Errno { return sys(unix.SYS_NFSSERVCTL, 0, 0, 0) }},
		{"personality", false, func() unix.Errno { return sys(unix.SYS_PERSONALITY, 0x0040000) }},
	}
	return append(calls, archPrivCalls()...)
}
