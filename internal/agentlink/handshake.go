package agentlink

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// preamble is the first thing the agent writes on the link, before gRPC's
// own preface. The engine reads it with the kernel's credentials of the
// writer attached: on a socketpair, SO_PEERCRED names the process that
// created the pair (the engine itself), so the child's pid and uid are
// learnt from the credentials of its first write instead.
var preamble = []byte("parallax-agent-link/1\n")

// PeerAddr is the agent at the other end of a link, as the kernel
// reported it on the link's first bytes. It is the RemoteAddr of the
// engine's connection, so gRPC hands it to interceptors as peer.Addr.
type PeerAddr struct {
	Pid int32
	Uid uint32
	Gid uint32
}

// Network names the address family.
func (PeerAddr) Network() string { return "unix" }

func (a PeerAddr) String() string {
	return "agent(pid=" + strconv.Itoa(int(a.Pid)) + ",uid=" + strconv.FormatUint(uint64(a.Uid), 10) + ")"
}

// readPreamble reads exactly the preamble from c (never more: gRPC's bytes
// follow) and returns the credentials the kernel attached to it. Every
// segment must carry the same credentials; file descriptors passed along
// are closed and refused.
func readPreamble(c *net.UnixConn) (PeerAddr, error) {
	buf := make([]byte, len(preamble))
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred)+unix.CmsgSpace(4*16))
	var peer *PeerAddr
	for n := 0; n < len(buf); {
		k, oobn, _, _, err := c.ReadMsgUnix(buf[n:], oob)
		if err != nil {
			return PeerAddr{}, fmt.Errorf("read link preamble: %w", err)
		}
		if k == 0 {
			return PeerAddr{}, errors.New("read link preamble: connection closed")
		}
		cred, err := parseCreds(oob[:oobn])
		if err != nil {
			return PeerAddr{}, fmt.Errorf("read link preamble: %w", err)
		}
		if peer == nil {
			peer = &cred
		} else if *peer != cred {
			return PeerAddr{}, fmt.Errorf("read link preamble: credentials changed from %v to %v", *peer, cred)
		}
		n += k
	}
	if !bytes.Equal(buf, preamble) {
		return PeerAddr{}, fmt.Errorf("read link preamble: got %q, want %q", buf, preamble)
	}
	return *peer, nil
}

// parseCreds returns the SCM_CREDENTIALS of one segment, closing any
// descriptors that came with it.
func parseCreds(oob []byte) (PeerAddr, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return PeerAddr{}, fmt.Errorf("parse control message: %w", err)
	}
	var cred *unix.Ucred
	var passedFDs bool
	for i := range msgs {
		if fds, ferr := unix.ParseUnixRights(&msgs[i]); ferr == nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			passedFDs = true
			continue
		}
		if c, cerr := unix.ParseUnixCredentials(&msgs[i]); cerr == nil {
			cred = c
		}
	}
	switch {
	case passedFDs:
		return PeerAddr{}, errors.New("peer passed file descriptors")
	case cred == nil:
		return PeerAddr{}, errors.New("no peer credentials attached")
	}
	return PeerAddr{Pid: cred.Pid, Uid: cred.Uid, Gid: cred.Gid}, nil
}

// stopPassCred turns credential passing off once the preamble is read.
func stopPassCred(c *net.UnixConn) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 0)
	}); err != nil {
		return err
	}
	return serr
}

// errLinkEnded ends Serve once the link's one connection has closed.
var errLinkEnded = errors.New("agentlink: the link connection closed")

// linkConn is the engine's connection after a good preamble.
type linkConn struct {
	*net.UnixConn
	peer   PeerAddr
	closed func()
}

func (c *linkConn) RemoteAddr() net.Addr { return c.peer }

func (c *linkConn) Close() error {
	err := c.UnixConn.Close()
	c.closed()
	return err
}

// oneConn is a net.Listener that yields the engine's end of the pair once,
// after checking the preamble and the peer. Later Accepts wait until the
// listener or that connection closes, so no second connection can exist.
type oneConn struct {
	verify func(PeerAddr) error

	mu      sync.Mutex
	conn    *net.UnixConn // nil once handed out or closed
	closed  chan struct{}
	ended   chan struct{}
	closeMu sync.Once
	endMu   sync.Once
}

func newOneConn(c *net.UnixConn, verify func(PeerAddr) error) *oneConn {
	return &oneConn{conn: c, verify: verify, closed: make(chan struct{}), ended: make(chan struct{})}
}

func (l *oneConn) Accept() (net.Conn, error) {
	l.mu.Lock()
	c := l.conn
	l.mu.Unlock()
	if c == nil {
		select {
		case <-l.closed:
			return nil, net.ErrClosed
		case <-l.ended:
			return nil, errLinkEnded
		}
	}
	peer, err := readPreamble(c)
	if err == nil {
		err = l.verify(peer)
	}
	if err == nil {
		err = stopPassCred(c)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil { // closed during the handshake
		return nil, net.ErrClosed
	}
	l.conn = nil
	if err != nil {
		c.Close()
		return nil, err
	}
	return &linkConn{UnixConn: c, peer: peer, closed: func() { l.endMu.Do(func() { close(l.ended) }) }}, nil
}

// Close stops Accept; it closes the connection only if it was never
// handed out (gRPC closes the one it holds).
func (l *oneConn) Close() error {
	l.closeMu.Do(func() { close(l.closed) })
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.conn.Close()
		l.conn = nil
	}
	return nil
}

func (l *oneConn) Addr() net.Addr { return PeerAddr{} }
