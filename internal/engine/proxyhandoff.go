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
	parent, child *os.File                 // the engine's end; the end the wrapper inherits as fd 3
	serve         func(lns []net.Listener) // the proxy's listener first, then each forward's
	want          int                      // how many listeners the wrapper sends

	mu      sync.Mutex
	lns     []net.Listener
	closed  bool
	started bool
	ended   chan struct{}
}

func newProxyHandoff(want int, serve func([]net.Listener)) (*proxyHandoff, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("egress proxy hand-off: %w", err)
	}
	return &proxyHandoff{parent: os.NewFile(uintptr(fds[0]), "proxy-handoff"),
		child: os.NewFile(uintptr(fds[1]), "proxy-handoff-child"), serve: serve, want: want,
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
		lns, err := h.receive()
		if err != nil {
			return // the wrapper failed before it handed over: the command did not run
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			for _, ln := range lns {
				_ = ln.Close()
			}
			return
		}
		h.lns = lns
		h.mu.Unlock()
		h.serve(lns)
	}()
}

// receive reads one message carrying the listening sockets.
func (h *proxyHandoff) receive() ([]net.Listener, error) {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4*h.want))
	n, oobn, _, _, err := unix.Recvmsg(int(h.parent.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || n != 1 || len(msgs) != 1 {
		return nil, fmt.Errorf("egress hand-off: malformed message")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != h.want {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("egress hand-off: want %d descriptors", h.want)
	}
	var lns []net.Listener
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "egress-listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("egress hand-off: %w", err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// close stops the proxy (its live connections end with the listener's
// server) and releases the hand-off's ends. Safe on a nil handoff.
func (h *proxyHandoff) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	for _, ln := range h.lns {
		_ = ln.Close()
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
