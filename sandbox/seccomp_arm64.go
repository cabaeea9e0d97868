//go:build linux

package sandbox

// auditArch is AUDIT_ARCH_AARCH64.
const auditArch = 0xc00000b7

// x32Bit is zero: arm64 has no second syscall ABI under the same arch.
const x32Bit = 0

const archSupported = true

// forkSyscalls is empty: arm64 has no fork or vfork, only clone.
var forkSyscalls []uint32

// archPrivileged is empty: arm64 has no iopl, ioperm or the old module
// calls.
var archPrivileged []uint32
