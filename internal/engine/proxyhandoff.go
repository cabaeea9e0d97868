package engine

import (
	"fmt"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// proxyHandoff receives the listening socket an isolated command's
// wrapper makes inside the command's network namespace, and serves the
// egress proxy on it for as long as the command runs.
type proxyHandoff struct {
	parent, child *os.File // the engine's end; the end the wrapper inherits as fd 3
	serve         func(hosts []string, ln net.Listener)
	hosts         []string

	mu      sync.Mutex
	ln      net.Listener
	closed  bool
	started bool
	ended   chan struct{}
}

func newProxyHandoff(serve func([]string, net.Listener), hosts []string) (*proxyHandoff, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("egress proxy hand-off: %w", err)
	}
	return &proxyHandoff{parent: os.NewFile(uintptr(fds[0]), "proxy-handoff"),
		child: os.NewFile(uintptr(fds[1]), "proxy-handoff-child"), serve: serve, hosts: hosts,
		ended: make(chan struct{})}, nil
}

// start waits, in the background, for the wrapper's listener and serves
// the proxy on it.
func (h *proxyHandoff) start() {
	h.mu.Lock()
	h.started = true
	h.mu.Unlock()
	go func() {
		defer close(h.ended)
		ln, err := h.receive()
		if err != nil {
			return // the wrapper failed before it handed over: the command did not run
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			_ = ln.Close()
			return
		}
		h.ln = ln
		h.mu.Unlock()
		h.serve(h.hosts, ln)
	}()
}

// receive reads one message carrying one descriptor: a listening socket.
func (h *proxyHandoff) receive() (net.Listener, error) {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(h.parent.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || n != 1 || len(msgs) != 1 {
		return nil, fmt.Errorf("egress proxy hand-off: malformed message")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("egress proxy hand-off: want one descriptor")
	}
	f := os.NewFile(uintptr(fds[0]), "egress-proxy")
	defer f.Close()
	return net.FileListener(f)
}

// close stops the proxy (its live connections end with the listener's
// server) and releases the hand-off's ends. Safe on a nil handoff.
func (h *proxyHandoff) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	if h.ln != nil {
		_ = h.ln.Close()
	}
	started := h.started
	h.mu.Unlock()
	// A receive still blocked (the wrapper never handed over) wakes on
	// shutdown; closing the descriptor alone would not wake it.
	_ = unix.Shutdown(int(h.parent.Fd()), unix.SHUT_RDWR)
	if started {
		<-h.ended
	}
	_ = h.parent.Close()
	_ = h.child.Close()
}
