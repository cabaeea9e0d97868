package egress

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// sniffLen is how many first tunnel bytes decide whether the client is
// speaking a proxy protocol inside the tunnel ("CONNECT ").
const sniffLen = 8

// relay copies between the client and the origin until both directions
// end, a side fails, the connection is idle for IdleTimeout, or the
// client's first bytes are a proxy handshake (nested_proxy). Bytes the
// client sent with its request (still buffered) go first.
func (s *session) relay() {
	act := &activity{}
	act.touch()
	down := make(chan struct{})
	go func() {
		defer close(down)
		if err := s.p.pipe(s.c, s.origin, act); err != nil {
			s.closeBoth()
			return
		}
		closeWrite(s.c)
	}()
	if err := s.up(act); err != nil {
		s.closeBoth()
	} else {
		_ = s.origin.CloseWrite()
	}
	<-down
	s.closeBoth()
}

// up sniffs the client's first bytes, then copies client to origin.
func (s *session) up(act *activity) error {
	head, err := s.sniff(act)
	if nestedProxy(head) {
		s.refuse(ReasonNestedProxy, "")
		return errNested
	}
	if len(head) > 0 {
		_ = s.origin.SetWriteDeadline(time.Now().Add(s.p.lim.IdleTimeout))
		if _, werr := s.origin.Write(head); werr != nil {
			return werr
		}
		act.touch()
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return s.p.pipe(s.origin, s.c, act)
}

var errNested = errors.New("proxy handshake inside a tunnel")

// sniff reads the client's first bytes: what it buffered with its
// request, then reads until sniffLen bytes or until the bytes can no
// longer start "CONNECT ".
func (s *session) sniff(act *activity) ([]byte, error) {
	var head []byte
	if n := s.br.Buffered(); n > 0 {
		b, _ := s.br.Peek(n)
		head = append(head, b...)
		_, _ = s.br.Discard(n)
	}
	buf := make([]byte, sniffLen)
	for undecided(head) {
		_ = s.c.SetReadDeadline(time.Now().Add(s.p.lim.IdleTimeout))
		n, err := s.c.Read(buf[:sniffLen-len(head)])
		head = append(head, buf[:n]...)
		if n > 0 {
			act.touch()
		}
		if err != nil {
			if isTimeout(err) && act.since() < s.p.lim.IdleTimeout {
				continue
			}
			return head, err
		}
	}
	return head, nil
}

// undecided reports whether more bytes are needed to tell a nested
// proxy handshake from anything else.
func undecided(head []byte) bool {
	if len(head) == 0 {
		return true
	}
	if len(head) >= sniffLen || head[0] == socksVersion || head[0] == socks4Version {
		return false
	}
	return hasPrefixFold(head, "CONNECT ")
}

// nestedProxy reports whether head starts a SOCKS greeting (v4 or v5) or
// an HTTP CONNECT request. TLS starts 0x16, SSH "SSH-", HTTP a method.
func nestedProxy(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if head[0] == socksVersion || head[0] == socks4Version {
		return true
	}
	return len(head) >= sniffLen && hasPrefixFold(head, "CONNECT ")
}

// hasPrefixFold reports whether head (possibly shorter) agrees with
// prefix on every byte it has, ASCII case-insensitively.
func hasPrefixFold(head []byte, prefix string) bool {
	for i := 0; i < len(head) && i < len(prefix); i++ {
		c := head[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// pipe copies src to dst until EOF (nil) or an error. A read that times
// out ends the copy only when neither direction moved for IdleTimeout.
func (p *Proxy) pipe(dst, src net.Conn, act *activity) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	idle := p.lim.IdleTimeout
	for {
		_ = src.SetReadDeadline(time.Now().Add(idle))
		n, err := src.Read(buf)
		if n > 0 {
			act.touch()
			_ = dst.SetWriteDeadline(time.Now().Add(idle))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			if isTimeout(err) && act.since() < idle {
				continue
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// bufPool holds the copy buffers of tunnels.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (s *session) closeBoth() {
	_ = s.c.Close()
	_ = s.origin.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// activity is when either direction of a tunnel last moved.
type activity struct{ last atomic.Int64 }

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }

func (a *activity) since() time.Duration {
	return time.Since(time.Unix(0, a.last.Load()))
}
