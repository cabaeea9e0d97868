//go:build linux

package sandbox

import (
	"runtime"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Support reports what the running kernel offers. It applies nothing.
func Support() Kernel {
	k := Kernel{Arch: runtime.GOARCH, ArchSupported: archSupported, LandlockABI: landlockABI()}
	action := uint32(retKillProcess)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	k.Seccomp = errno == 0
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	k.NoNewPrivs = err == nil && nnp == 1
	return k
}

// landlockABI is the kernel's Landlock ABI, 0 without Landlock. Like
// go-landlock, an ABI >= 6 whose signal-scoping erratum (bit 1) is not
// fixed counts as 5, so scoping is never claimed where it is broken.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		errata, err := ll.LandlockGetErrata()
		if err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}
