//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData lays out struct seccomp_data for bpf.VM. The VM reads
// words big-endian where the kernel reads them in host order, so the
// test writes each word big-endian to make the VM see the same values.
func seccompData(arch, nr uint32, arg0 uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	binary.BigEndian.PutUint32(b[offArg0:], arg0)
	return b
}

func TestSeccompFilterDecisions(t *testing.T) {
	eperm, eacces, enosys := retEPERM, retEACCES, retENOSYS
	agent := filterKind{agent: true}
	offline := filterKind{}
	online := filterKind{network: true}
	const sigchld = uint32(unix.SIGCHLD)
	threadFlags := uint32(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD)
	cases := []struct {
		name string
		kind filterKind
		arch uint32
		nr   uint32
		arg0 uint32
		want uint32
	}{
		{"wrong arch killed", agent, 0x40000003 /* i386 */, unix.SYS_READ, 0, retKillProcess},
		{"wrong arch killed for commands too", online, 0x40000003, unix.SYS_READ, 0, retKillProcess},
		{"read allowed", agent, auditArch, unix.SYS_READ, 0, retAllow},
		{"agent execve", agent, auditArch, unix.SYS_EXECVE, 0, eperm},
		{"agent execveat", agent, auditArch, unix.SYS_EXECVEAT, 0, eperm},
		{"agent new thread", agent, auditArch, unix.SYS_CLONE, threadFlags, retAllow},
		{"agent new process", agent, auditArch, unix.SYS_CLONE, sigchld, eperm},
		{"agent vfork-style clone", agent, auditArch, unix.SYS_CLONE, unix.CLONE_VM | unix.CLONE_VFORK | sigchld, eperm},
		{"agent thread in a new namespace", agent, auditArch, unix.SYS_CLONE, threadFlags | unix.CLONE_NEWNET, eperm},
		{"agent clone3", agent, auditArch, unix.SYS_CLONE3, 0, enosys},
		{"agent unix socket", agent, auditArch, unix.SYS_SOCKET, unix.AF_UNIX, eperm},
		{"agent socketpair", agent, auditArch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, eperm},
		{"agent io_uring", agent, auditArch, unix.SYS_IO_URING_SETUP, 0, eperm},
		{"agent ptrace", agent, auditArch, unix.SYS_PTRACE, 0, eperm},
		{"agent process_vm_readv", agent, auditArch, unix.SYS_PROCESS_VM_READV, 0, eperm},
		{"agent bpf", agent, auditArch, unix.SYS_BPF, 0, eperm},
		{"agent mount", agent, auditArch, unix.SYS_MOUNT, 0, eperm},
		{"agent fsopen", agent, auditArch, unix.SYS_FSOPEN, 0, eperm},
		{"agent unshare", agent, auditArch, unix.SYS_UNSHARE, 0, eperm},
		{"agent setns", agent, auditArch, unix.SYS_SETNS, 0, eperm},
		{"agent keyctl", agent, auditArch, unix.SYS_KEYCTL, 0, eperm},
		{"command execve", offline, auditArch, unix.SYS_EXECVE, 0, retAllow},
		{"command fork via clone", offline, auditArch, unix.SYS_CLONE, sigchld, retAllow},
		{"command clone into a user namespace", offline, auditArch, unix.SYS_CLONE, unix.CLONE_NEWUSER | sigchld, eperm},
		{"command clone3", offline, auditArch, unix.SYS_CLONE3, 0, enosys},
		{"command inet socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_INET, eacces},
		{"command inet6 socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_INET6, eacces},
		{"command unix socket offline", offline, auditArch, unix.SYS_SOCKET, unix.AF_UNIX, retAllow},
		{"command inet socket online", online, auditArch, unix.SYS_SOCKET, unix.AF_INET, retAllow},
		{"command io_uring", online, auditArch, unix.SYS_IO_URING_ENTER, 0, enosys},
		{"command ptrace", online, auditArch, unix.SYS_PTRACE, 0, eperm},
		{"command keyctl", online, auditArch, unix.SYS_KEYCTL, 0, eperm},
	}
	if x32Bit != 0 {
		cases = append(cases, struct {
			name string
			kind filterKind
			arch uint32
			nr   uint32
			arg0 uint32
			want uint32
		}{"x32 syscall killed", offline, auditArch, x32Bit | unix.SYS_READ, 0, retKillProcess})
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
			got, err := vms[tc.kind].Run(seccompData(tc.arch, tc.nr, tc.arg0))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != tc.want {
				t.Errorf("got %#x, want %#x", uint32(got), tc.want)
			}
		})
	}
}
