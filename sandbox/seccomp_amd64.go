//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is AUDIT_ARCH_X86_64: a filter sees every other value (i386
// through int 0x80) as a mismatch and kills the process.
const auditArch = 0xc000003e

// x32Bit marks x32 syscall numbers, which share AUDIT_ARCH_X86_64 and
// would otherwise walk around the number checks.
const x32Bit = 0x40000000

// archSupported is true where this file has a syscall table.
const archSupported = true

// forkSyscalls create a process without going through clone's flags.
var forkSyscalls = []uint32{unix.SYS_FORK, unix.SYS_VFORK}

// archPrivileged are the privileged syscalls only this architecture has:
// port I/O and the module calls older kernels still number.
var archPrivileged = []uint32{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_CREATE_MODULE, unix.SYS_USELIB}
