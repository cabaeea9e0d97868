//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Seccomp return values (linux/seccomp.h).
const (
	retKillProcess = 0x80000000
	retErrno       = 0x00050000
	retAllow       = 0x7fff0000
)

// struct seccomp_data offsets: nr, arch, then args[6] as u64 from 16.
// Both supported arches are little-endian, so an argument's low 32 bits
// sit at its own offset; the kernel reads socket's domain and clone's
// flags as int / unsigned long, and every flag we test is in the low word.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// nsFlags are clone's namespace flags (CLONE_NEWNS, NEWCGROUP, NEWUTS,
// NEWIPC, NEWUSER, NEWPID, NEWNET). CLONE_NEWTIME (0x80) is left out:
// in clone's flags that bit belongs to the exit signal.
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// mountSyscalls change the mount table (old and new mount API).
var mountSyscalls = []uint32{
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_MOUNT_SETATTR, unix.SYS_PIVOT_ROOT,
}

// commonDenied are refused to the agent and to every command: debugging
// other processes, reading their memory or stealing their fds, loading
// BPF, changing mounts or namespaces, and the kernel keyring.
var commonDenied = concat([]uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_PIDFD_GETFD, unix.SYS_BPF, unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
}, mountSyscalls)

// privilegedSyscalls are refused to the agent and to every command with
// EPERM, as if the capability they check were missing (it is, for an
// unprivileged caller; root keeps it in a command). They act on the whole
// machine: rebooting or replacing the kernel, loading modules, naming the
// host, reading the kernel log, swap, process accounting, setting the
// clocks, quotas; or they open a way around the other walls: perf and
// userfaultfd (kernel exploitation aids), lookup_dcookie, and
// open_by_handle_at, which opens a file by handle without a path for
// Landlock to judge. name_to_handle_at is only refused to the agent
// (agentOnlyDenied): it reads, and a command's tools may use it.
var privilegedSyscalls = concat([]uint32{
	unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_SYSLOG,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD, unix.SYS_LOOKUP_DCOOKIE,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_VHANGUP, unix.SYS_NFSSERVCTL,
}, archPrivileged)

// allowedPersonas are the personality(2) values either filter lets
// through (Docker's list): the query, Linux, and the 32-bit and 2.6
// uname flavours. Everything else, ADDR_NO_RANDOMIZE and
// READ_IMPLIES_EXEC among them, fails with EPERM.
var allowedPersonas = []uint32{0, 0x8, 0x20000, 0x20008, 0xffffffff}

// ioURing can open sockets and files without the syscalls seccomp sees.
var ioURing = []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}

func concat(lists ...[]uint32) []uint32 {
	var out []uint32
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// filterKind selects the agent's filter or a command's.
type filterKind struct {
	agent   bool // no exec, no fork, no sockets at all
	network bool // command only: AF_INET/AF_INET6 sockets allowed
}

// Errno returns of the filters.
var (
	retEPERM  = uint32(retErrno | uint32(unix.EPERM))
	retEACCES = uint32(retErrno | uint32(unix.EACCES))
	retENOSYS = uint32(retErrno | uint32(unix.ENOSYS))
)

// program is a filter under construction.
type program []bpf.Instruction

// deny returns ret for each of the syscalls nrs.
func (p *program) deny(ret uint32, nrs ...uint32) {
	for _, nr := range nrs {
		*p = append(*p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, bpf.RetConstant{Val: ret})
	}
}

// assemble builds the filter: architecture check, x32 refusal, then one
// block per syscall that ends in a return; everything else is allowed.
func assemble(k filterKind) ([]bpf.RawInstruction, error) {
	if !archSupported {
		return nil, fmt.Errorf("%w: no seccomp syscall table for %s", ErrUnsupported, runtime.GOARCH)
	}
	p := program{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		bpf.RetConstant{Val: retKillProcess},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if x32Bit != 0 {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: retKillProcess})
	}
	p.deny(retEPERM, commonDenied...)
	p.deny(retEPERM, privilegedSyscalls...)
	p.personality()
	// clone3 keeps its flags behind a pointer the filter cannot read:
	// ENOSYS makes libc fall back to clone, whose flags it can.
	p.deny(retENOSYS, unix.SYS_CLONE3)
	if k.agent {
		p.agentRules()
	} else {
		p.commandRules(k.network)
	}
	p = append(p, bpf.RetConstant{Val: retAllow})
	raw, err := bpf.Assemble(p)
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	return raw, nil
}

// agentRules: no exec, no process, no socket, no io_uring.
func (p *program) agentRules() {
	p.deny(retEPERM, ioURing...)
	p.deny(retEPERM, unix.SYS_NAME_TO_HANDLE_AT)
	p.deny(retEPERM, unix.SYS_EXECVE, unix.SYS_EXECVEAT, unix.SYS_SOCKET, unix.SYS_SOCKETPAIR)
	p.deny(retEPERM, forkSyscalls...)
	*p = append(*p, argBlock(unix.SYS_CLONE,
		// no CLONE_THREAD: a new process, refused.
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.CLONE_THREAD, SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	)...)
}

// commandRules: processes and exec allowed, but no new namespace, no
// io_uring (ENOSYS, so runtimes fall back to plain syscalls) and only
// the socket families socketRules allows.
func (p *program) commandRules(network bool) {
	p.deny(retENOSYS, ioURing...)
	*p = append(*p, argBlock(unix.SYS_CLONE,
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	)...)
	body := socketRules(network)
	*p = append(*p, argBlock(unix.SYS_SOCKET, body...)...)
	*p = append(*p, argBlock(unix.SYS_SOCKETPAIR, body...)...)
}

// sockTypeFlags are the flags socket(2) accepts in its type argument
// beside the type itself.
const sockTypeFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC

// socketRules is an allowlist for socket and socketpair, whose domain is
// in the accumulator: AF_UNIX always; with network, AF_INET and AF_INET6
// of type SOCK_STREAM or SOCK_DGRAM (flags masked off), so no raw IP
// socket, SOCK_PACKET, SCTP or DCCP. Everything else (netlink, packet,
// vsock, key, alg, bluetooth, xdp, ...) fails with EACCES, like the
// refused network.
func socketRules(network bool) []bpf.Instruction {
	if !network {
		return []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipFalse: 1},
			bpf.RetConstant{Val: retAllow},
			bpf.RetConstant{Val: retEACCES},
		}
	}
	return []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipTrue: 7},   // -> allow
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 1},   // -> type
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipFalse: 4}, // -> refuse
		bpf.LoadAbsolute{Off: offArg1, Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ^uint32(sockTypeFlags)},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 2}, // -> allow
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipTrue: 1},  // -> allow
		bpf.RetConstant{Val: retEACCES},
		bpf.RetConstant{Val: retAllow},
	}
}

// personality lets only allowedPersonas through.
func (p *program) personality() {
	body := make([]bpf.Instruction, 0, len(allowedPersonas)+2)
	for i, v := range allowedPersonas {
		body = append(body, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipTrue: uint8(len(allowedPersonas) - i)})
	}
	body = append(body, bpf.RetConstant{Val: retEPERM}, bpf.RetConstant{Val: retAllow})
	*p = append(*p, argBlock(unix.SYS_PERSONALITY, body...)...)
}

// argBlock matches syscall nr, loads its first argument's low word and
// runs body, which must end every path in a return. Other syscalls skip
// the block with the syscall number reloaded.
func argBlock(nr uint32, body ...bpf.Instruction) []bpf.Instruction {
	out := []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(len(body) + 1)},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
	}
	out = append(out, body...)
	return out
}

// installSeccomp sets no_new_privs and loads the filter on every thread
// of the process (SECCOMP_FILTER_FLAG_TSYNC; the kernel also carries
// no_new_privs to the threads it synchronises).
func installSeccomp(k filterKind) error {
	raw, err := assemble(k)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	r1, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	if r1 != 0 {
		return fmt.Errorf("install seccomp filter: thread %d could not be synchronised", r1)
	}
	return nil
}
