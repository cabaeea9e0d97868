//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// sockCall is one socket(2) or socketpair(2) a socket child makes.
type sockCall struct {
	Name   string `json:"name"`
	Family int    `json:"family"`
	Type   int    `json:"type"`
	Proto  int    `json:"proto"`
	Pair   bool   `json:"pair"`
}

// socketChild makes the calls in PARALLAX_SANDBOX_TEST_SOCKETS and
// prints each one's errno name ("" for success) as a JSON object.
func socketChild() int {
	var calls []sockCall
	if err := json.Unmarshal([]byte(os.Getenv("PARALLAX_SANDBOX_TEST_SOCKETS")), &calls); err != nil {
		fmt.Fprintln(os.Stderr, "decode input:", err)
		return 2
	}
	out := map[string]string{}
	for _, c := range calls {
		var err error
		if c.Pair {
			var fds [2]int
			if fds, err = unix.Socketpair(c.Family, c.Type|unix.SOCK_CLOEXEC, c.Proto); err == nil {
				unix.Close(fds[0])
				unix.Close(fds[1])
			}
		} else {
			var fd int
			if fd, err = unix.Socket(c.Family, c.Type|unix.SOCK_CLOEXEC, c.Proto); err == nil {
				unix.Close(fd)
			}
		}
		out[c.Name] = errnoName(errnoOf(err))
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 2
	}
	return 0
}

// socketErrnos runs the calls in a socket child, under spec or, when
// spec is nil, unsandboxed (the control).
func socketErrnos(t *testing.T, spec *CommandSpec, calls []sockCall) map[string]string {
	t.Helper()
	raw, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{roleEnv + "=socket", "PARALLAX_SANDBOX_TEST_SOCKETS=" + string(raw)}
	var cmd *exec.Cmd
	if spec == nil {
		cmd = exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env...)
	} else {
		if cmd, err = spec.Command(t.Context(), os.Args[0], []string{os.Args[0], "-test.run=^$"}); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, env...)
	}
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("socket child: %v (%s)", err, stderrOf(err))
	}
	out := map[string]string{}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return out
}

// checkSocketsRefused wants EACCES for each call under the command
// sandbox, with and without network, and a control that was not
// refused with EACCES (it may succeed, or find the family missing).
func checkSocketsRefused(t *testing.T, calls []sockCall, networks ...bool) {
	t.Helper()
	requireLandlock(t)
	f := newCmdFixture(t)
	control := socketErrnos(t, nil, calls)
	for _, network := range networks {
		spec := f.spec()
		spec.Network = network
		got := socketErrnos(t, &spec, calls)
		for _, c := range calls {
			t.Run(fmt.Sprintf("%s/network=%v", c.Name, network), func(t *testing.T) {
				if control[c.Name] == "EACCES" {
					t.Fatalf("control: refused with EACCES unsandboxed too")
				}
				if got[c.Name] != "EACCES" {
					t.Errorf("got %q, want EACCES (unsandboxed: %q)", got[c.Name], control[c.Name])
				}
			})
		}
	}
}

// TestCommandCannotOpenNetlinkSocket: no route, audit or other netlink
// socket, whatever the verdict says about network.
func TestCommandCannotOpenNetlinkSocket(t *testing.T) {
	checkSocketsRefused(t, []sockCall{
		{Name: "route", Family: unix.AF_NETLINK, Type: unix.SOCK_RAW, Proto: unix.NETLINK_ROUTE},
		{Name: "route datagram", Family: unix.AF_NETLINK, Type: unix.SOCK_DGRAM, Proto: unix.NETLINK_ROUTE},
		{Name: "audit", Family: unix.AF_NETLINK, Type: unix.SOCK_RAW, Proto: unix.NETLINK_AUDIT},
		{Name: "uevent", Family: unix.AF_NETLINK, Type: unix.SOCK_DGRAM, Proto: unix.NETLINK_KOBJECT_UEVENT},
	}, false, true)
}

// TestCommandCannotOpenRawSocketWithNetwork: network effects allow TCP
// and UDP, never a raw IP socket or a packet-level one.
func TestCommandCannotOpenRawSocketWithNetwork(t *testing.T) {
	checkSocketsRefused(t, []sockCall{
		{Name: "raw icmp", Family: unix.AF_INET, Type: unix.SOCK_RAW, Proto: unix.IPPROTO_ICMP},
		{Name: "raw ipv6 icmp", Family: unix.AF_INET6, Type: unix.SOCK_RAW, Proto: unix.IPPROTO_ICMPV6},
		{Name: "raw ip nonblocking", Family: unix.AF_INET, Type: unix.SOCK_RAW | unix.SOCK_NONBLOCK, Proto: unix.IPPROTO_RAW},
		{Name: "SOCK_PACKET", Family: unix.AF_INET, Type: unix.SOCK_PACKET, Proto: 0x300}, // htons(ETH_P_ALL)
		{Name: "sctp", Family: unix.AF_INET, Type: unix.SOCK_SEQPACKET, Proto: unix.IPPROTO_SCTP},
	}, true)
}

// TestCommandCannotOpenOtherSocketFamilies: every family besides unix
// and inet is refused, as an allowlist; these are the ones with a
// history or a reach beyond the machine's TCP/IP.
func TestCommandCannotOpenOtherSocketFamilies(t *testing.T) {
	checkSocketsRefused(t, []sockCall{
		{Name: "packet", Family: unix.AF_PACKET, Type: unix.SOCK_RAW, Proto: 0x300},
		{Name: "vsock", Family: unix.AF_VSOCK, Type: unix.SOCK_STREAM},
		{Name: "key", Family: unix.AF_KEY, Type: unix.SOCK_RAW, Proto: 2}, // PF_KEY_V2
		{Name: "alg", Family: unix.AF_ALG, Type: unix.SOCK_SEQPACKET},
		{Name: "alg socketpair", Family: unix.AF_ALG, Type: unix.SOCK_SEQPACKET, Pair: true},
		{Name: "bluetooth", Family: unix.AF_BLUETOOTH, Type: unix.SOCK_RAW},
		{Name: "xdp", Family: unix.AF_XDP, Type: unix.SOCK_RAW},
		{Name: "can", Family: unix.AF_CAN, Type: unix.SOCK_RAW, Proto: 1},
		{Name: "tipc", Family: unix.AF_TIPC, Type: unix.SOCK_RDM},
		{Name: "rds", Family: unix.AF_RDS, Type: unix.SOCK_SEQPACKET},
		{Name: "unknown family", Family: 45, Type: unix.SOCK_STREAM},
	}, false, true)
}

// TestCommandCannotOpenInetSocketWithoutNetwork: without network
// effects no TCP or UDP socket, nor an inet socketpair.
func TestCommandCannotOpenInetSocketWithoutNetwork(t *testing.T) {
	checkSocketsRefused(t, []sockCall{
		{Name: "tcp", Family: unix.AF_INET, Type: unix.SOCK_STREAM},
		{Name: "udp6", Family: unix.AF_INET6, Type: unix.SOCK_DGRAM},
		{Name: "inet socketpair", Family: unix.AF_INET, Type: unix.SOCK_STREAM, Pair: true},
	}, false)
}

// TestCommandOpensUnixAndInetSockets is the other side: unix sockets
// always, TCP and UDP with network.
func TestCommandOpensUnixAndInetSockets(t *testing.T) {
	requireLandlock(t)
	f := newCmdFixture(t)
	calls := []sockCall{
		{Name: "unix stream", Family: unix.AF_UNIX, Type: unix.SOCK_STREAM},
		{Name: "unix datagram", Family: unix.AF_UNIX, Type: unix.SOCK_DGRAM | unix.SOCK_NONBLOCK},
		{Name: "unix socketpair", Family: unix.AF_UNIX, Type: unix.SOCK_SEQPACKET, Pair: true},
		{Name: "tcp", Family: unix.AF_INET, Type: unix.SOCK_STREAM},
		{Name: "udp", Family: unix.AF_INET, Type: unix.SOCK_DGRAM | unix.SOCK_NONBLOCK},
		{Name: "tcp6", Family: unix.AF_INET6, Type: unix.SOCK_STREAM},
		{Name: "ping", Family: unix.AF_INET, Type: unix.SOCK_DGRAM, Proto: unix.IPPROTO_ICMP},
	}
	control := socketErrnos(t, nil, calls)
	spec := f.spec()
	spec.Network = true
	got := socketErrnos(t, &spec, calls)
	for _, c := range calls {
		t.Run(c.Name, func(t *testing.T) {
			if got[c.Name] != control[c.Name] {
				t.Errorf("got %q, want %q as unsandboxed", got[c.Name], control[c.Name])
			}
		})
	}
}

// TestCommandResolvesLocalhostWithNetwork: glibc's getaddrinfo opens a
// netlink socket for AI_ADDRCONFIG and falls back when it is refused, so
// name resolution keeps working under the socket allowlist.
func TestCommandResolvesLocalhostWithNetwork(t *testing.T) {
	requireLandlock(t)
	f := newCmdFixture(t)
	spec := f.spec()
	spec.Network = true
	cases := []struct {
		name string
		argv []string
	}{
		{"getent", []string{"getent", "ahosts", "localhost"}},
		{"python AI_ADDRCONFIG", []string{"python3", "-c",
			`import socket; print(socket.getaddrinfo("localhost", 80, flags=socket.AI_ADDRCONFIG)[0][4][0])`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.argv[0]); err != nil {
				t.Skipf("no %s here", tc.argv[0])
			}
			code, stdout, stderr := runSandboxed(t, spec, nil, tc.argv...)
			if code != 0 || !strings.Contains(stdout, "127.0.0.1") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 127.0.0.1", code, stdout, stderr)
			}
		})
	}
}
