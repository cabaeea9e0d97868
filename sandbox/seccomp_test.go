//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"fmt"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data for bpf.VM. The VM reads
// words big-endian where the kernel reads them in host order, so the
// test writes each word big-endian to make the VM see the same values.
func seccompData(arch, nr uint32, arg0, arg1 uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	binary.BigEndian.PutUint32(b[offArg0:], arg0)
	binary.BigEndian.PutUint32(b[offArg1:], arg1)
	return b
}

// filterCase is one syscall (number, first two arguments' low words)
// and the return a filter kind must give it.
type filterCase struct {
	name       string
	kind       filterKind
	arch       uint32
	nr         uint32
	arg0, arg1 uint32
	want       uint32
}

func TestSeccompFilterDecisions(t *testing.T) {
	eperm, eacces, enosys := retEPERM, retEACCES, retENOSYS
	agent := filterKind{agent: true}
	offline := filterKind{}
	online := filterKind{network: true}
	const sigchld = uint32(unix.SIGCHLD)
	threadFlags := uint32(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD)
	stream := uint32(unix.SOCK_STREAM | unix.SOCK_CLOEXEC)
	cases := []filterCase{
		{"wrong arch killed", agent, 0x40000003 /* i386 */, unix.SYS_READ, 0, 0, retKillProcess},
		{"wrong arch killed for commands too", online, 0x40000003, unix.SYS_READ, 0, 0, retKillProcess},
		{"read allowed", agent, auditArch, unix.SYS_READ, 0, 0, retAllow},
		{"agent execve", agent, auditArch, unix.SYS_EXECVE, 0, 0, eperm},
		{"agent execveat", agent, auditArch, unix.SYS_EXECVEAT, 0, 0, eperm},
		{"agent new thread", agent, auditArch, unix.SYS_CLONE, threadFlags, 0, retAllow},
		{"agent new process", agent, auditArch, unix.SYS_CLONE, sigchld, 0, eperm},
		{"agent vfork-style clone", agent, auditArch, unix.SYS_CLONE, unix.CLONE_VM | unix.CLONE_VFORK | sigchld, 0, eperm},
		{"agent thread in a new namespace", agent, auditArch, unix.SYS_CLONE, threadFlags | unix.CLONE_NEWNET, 0, eperm},
		{"agent clone3", agent, auditArch, unix.SYS_CLONE3, 0, 0, enosys},
		{"agent unix socket", agent, auditArch, unix.SYS_SOCKET, unix.AF_UNIX, 0, eperm},
		{"agent socketpair", agent, auditArch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, 0, eperm},
		{"agent io_uring", agent, auditArch, unix.SYS_IO_URING_SETUP, 0, 0, eperm},
		{"agent ptrace", agent, auditArch, unix.SYS_PTRACE, 0, 0, eperm},
		{"agent process_vm_readv", agent, auditArch, unix.SYS_PROCESS_VM_READV, 0, 0, eperm},
		{"agent bpf", agent, auditArch, unix.SYS_BPF, 0, 0, eperm},
		{"agent mount", agent, auditArch, unix.SYS_MOUNT, 0, 0, eperm},
		{"agent fsopen", agent, auditArch, unix.SYS_FSOPEN, 0, 0, eperm},
		{"agent unshare", agent, auditArch, unix.SYS_UNSHARE, 0, 0, eperm},
		{"agent setns", agent, auditArch, unix.SYS_SETNS, 0, 0, eperm},
		{"agent keyctl", agent, auditArch, unix.SYS_KEYCTL, 0, 0, eperm},
		{"command execve", offline, auditArch, unix.SYS_EXECVE, 0, 0, retAllow},
		{"command fork via clone", offline, auditArch, unix.SYS_CLONE, sigchld, 0, retAllow},
		{"command clone into a user namespace", offline, auditArch, unix.SYS_CLONE, unix.CLONE_NEWUSER | sigchld, 0, eperm},
		{"command clone3", offline, auditArch, unix.SYS_CLONE3, 0, 0, enosys},
		{"command inet socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_INET, 0, eacces},
		{"command inet6 socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_INET6, 0, eacces},
		{"command unix socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_UNIX, 0, retAllow},
		{"command inet socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, stream, retAllow},
		{"command inet6 datagram socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, retAllow},
		{"command raw inet socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_RAW, eacces},
		{"command raw inet6 socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_RAW | unix.SOCK_CLOEXEC, eacces},
		{"command SOCK_PACKET online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_PACKET, eacces},
		{"command SCTP seqpacket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_SEQPACKET, eacces},
		{"command unknown type flag online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, stream | 0x100, eacces},
		{"command unix socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_DGRAM, retAllow},
		{"command unix socketpair online", online, auditArch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, stream, retAllow},
		{"command unix socketpair offline", offline, auditArch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, stream, retAllow},
		{"command inet socketpair offline", offline, auditArch, unix.SYS_SOCKETPAIR, unix.AF_INET, stream, eacces},
		{"command netlink online", online, auditArch, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, eacces},
		{"command netlink offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_DGRAM, eacces},
		{"command packet online", online, auditArch, unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_DGRAM, eacces},
		{"command vsock online", online, auditArch, unix.SYS_SOCKET, unix.AF_VSOCK, stream, eacces},
		{"command alg socketpair online", online, auditArch, unix.SYS_SOCKETPAIR, unix.AF_ALG, unix.SOCK_SEQPACKET, eacces},
		{"command family in the high word", online, auditArch, unix.SYS_SOCKET, unix.AF_UNIX | 0x10000, stream, eacces},
		{"agent reboot", agent, auditArch, unix.SYS_REBOOT, 0, 0, eperm},
		{"command reboot", online, auditArch, unix.SYS_REBOOT, 0, 0, eperm},
		{"agent open_by_handle_at", agent, auditArch, unix.SYS_OPEN_BY_HANDLE_AT, 0, 0, eperm},
		{"command open_by_handle_at", offline, auditArch, unix.SYS_OPEN_BY_HANDLE_AT, 0, 0, eperm},
		{"agent name_to_handle_at", agent, auditArch, unix.SYS_NAME_TO_HANDLE_AT, 0, 0, eperm},
		{"command name_to_handle_at", offline, auditArch, unix.SYS_NAME_TO_HANDLE_AT, 0, 0, retAllow},
		{"command personality query", offline, auditArch, unix.SYS_PERSONALITY, 0xffffffff, 0, retAllow},
		{"command personality linux32", offline, auditArch, unix.SYS_PERSONALITY, 0x8 /* PER_LINUX32 */, 0, retAllow},
		{"command personality no ASLR", offline, auditArch, unix.SYS_PERSONALITY, 0x0040000 /* ADDR_NO_RANDOMIZE */, 0, eperm},
		{"agent personality READ_IMPLIES_EXEC", agent, auditArch, unix.SYS_PERSONALITY, 0x0400000 /* READ_IMPLIES_EXEC */, 0, eperm},
		{"command io_uring", online, auditArch, unix.SYS_IO_URING_ENTER, 0, 0, enosys},
		{"command ptrace", online, auditArch, unix.SYS_PTRACE, 0, 0, eperm},
		{"command keyctl", online, auditArch, unix.SYS_KEYCTL, 0, 0, eperm},
	}
	for _, nr := range privilegedSyscalls {
		for _, k := range []filterKind{agent, offline, online} {
			cases = append(cases, filterCase{fmt.Sprintf("privileged %d for %+v", nr, k), k, auditArch, nr, 0, 0, eperm})
		}
	}
	if x32Bit != 0 {
		cases = append(cases, filterCase{"x32 syscall killed", offline, auditArch, x32Bit | unix.SYS_READ, 0, 0, retKillProcess})
	}
	vms := map[filterKind]*bpf.VM{}
	for _, k := range []filterKind{agent, offline, online} {
		raw, err := assemble(k)
		if err != nil {
			t.Fatal(err)
		}
		prog, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatalf("%+v: filter does not disassemble", k)
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			t.Fatalf("%+v: %v", k, err)
		}
		vms[k] = vm
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vms[tc.kind].Run(seccompData(tc.arch, tc.nr, tc.arg0, tc.arg1))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tc.want {
				t.Errorf("got %#x, want %#x", uint32(got), tc.want)
			}
		})
	}
}
