package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"
)

// session is one client connection being served.
type session struct {
	p      *Proxy
	c      net.Conn
	lr     *limitReader  // bounds the header or handshake
	br     *bufio.Reader // reads c through lr
	origin *countConn    // set once dialled
	rec    Conn

	answered    bool // the client has its answer (refusal, 200, SOCKS reply)
	socksMethod bool // a SOCKS method was selected: refusals are replies
}

// refuse records a refusal and answers the client, once.
func (s *session) refuse(r Reason, detail string) {
	s.rec.Decision, s.rec.Reason, s.rec.Detail = Refused, r, detail
	if s.answered {
		return
	}
	s.answered = true
	a := answerFor(r)
	_ = s.c.SetWriteDeadline(time.Now().Add(time.Second))
	if s.rec.Protocol == ProtoSOCKS5 {
		if s.socksMethod {
			_, _ = s.c.Write(socksReply(a.socks))
		} else {
			_, _ = s.c.Write([]byte{socksVersion, socksNoAcceptable})
		}
	} else {
		writeHTTPRefusal(s.c, a.status, r)
	}
	s.linger()
}

// linger half-closes the client and drains what it still sends for a
// moment, so that closing with unread bytes does not reset the
// connection before the client reads its answer.
func (s *session) linger() {
	cw, ok := s.c.(interface{ CloseWrite() error })
	if !ok {
		return // not a socket that resets on close (net.Pipe in fuzzing)
	}
	_ = cw.CloseWrite()
	_ = s.c.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
	_, _ = io.CopyN(io.Discard, s.c, 64<<10)
}

func writeHTTPRefusal(w io.Writer, status int, r Reason) {
	body := "parallax egress proxy: refused (" + string(r) + ")\n"
	_, _ = io.WriteString(w, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+"\r\n"+
		"Content-Type: text/plain; charset=utf-8\r\n"+
		"X-Parallax-Egress: "+string(r)+"\r\n"+
		"Connection: close\r\n"+
		"Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
}

// finish closes the origin and emits the audit record. A panic while
// serving is a refusal (internal_error).
func (s *session) finish() {
	if r := recover(); r != nil {
		s.refuse(ReasonInternal, fmt.Sprint("panic: ", r))
	}
	if s.origin != nil {
		s.p.untrack(s.origin.Conn)
		s.rec.Up, s.rec.Down = s.origin.up.Load(), s.origin.down.Load()
	}
	if s.rec.Decision == "" {
		s.rec.Decision, s.rec.Reason = Refused, ReasonClosed
	}
	s.rec.Duration = s.p.now().Sub(s.rec.Start)
	if s.p.audit != nil {
		s.p.audit(s.rec)
	}
}

// readReason names why reading a header or handshake failed.
func (s *session) readReason(err error) Reason {
	var ne net.Error
	switch {
	case s.lr.hit:
		return ReasonHeaderTooLarge
	case errors.As(err, &ne) && ne.Timeout():
		return ReasonTimeout
	case s.p.isClosed():
		return ReasonClosed
	}
	return ReasonBadRequest
}

// endHeader lifts the header bound and deadline once the request or
// handshake is read.
func (s *session) endHeader() {
	s.lr.on = false
	_ = s.c.SetDeadline(time.Time{})
}

// admission is the outcome of checking a target against the rules.
type admission struct {
	addrs  []netip.AddrPort // checked addresses, in dial order
	reason Reason           // why allowed, or why refused
	ok     bool
	detail string
}

// admit inspects the host name, matches t against the rules and checks
// the addresses it may be dialled at. On refusal it answers the client.
func (s *session) admit(t target) ([]netip.AddrPort, bool) {
	s.rec.Host, s.rec.Port = t.host, t.port
	if err := s.p.check("host", t.raw); err != nil {
		s.rec.Host = Withheld
		s.refuse(ReasonDLP, err.Error())
		return nil, false
	}
	ad := s.p.admit(t)
	if !ad.ok {
		if len(ad.addrs) > 0 {
			s.rec.Addr = ad.addrs[0]
		}
		s.refuse(ad.reason, ad.detail)
		return nil, false
	}
	s.rec.Reason = ad.reason
	return ad.addrs, true
}

// admit matches t and returns the addresses to dial: a literal registry
// entry's own address, or the target's addresses once every one of them
// is public. A name is resolved once; the dial uses these addresses.
func (p *Proxy) admit(t target) admission {
	r, ok := p.rules.match(t)
	if !ok {
		return admission{reason: ReasonHostNotAllowed}
	}
	allow := ReasonVerdictHost
	if r.registry {
		allow = ReasonRegistry
	}
	exempt := t.ip.IsValid() && r.registry && r.addr.IsValid()
	var ips []netip.Addr
	switch {
	case exempt:
		ips = []netip.Addr{r.addr}
	case t.ip.IsValid():
		ips = []netip.Addr{t.ip}
	default:
		ctx, cancel := context.WithTimeout(p.ctx, p.lim.DialTimeout)
		got, err := p.resolve(ctx, t.host)
		cancel()
		if err != nil || len(got) == 0 {
			return admission{reason: ReasonResolve, detail: fmt.Sprint(err)}
		}
		ips = got
	}
	ad := admission{reason: allow, ok: true}
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), t.port)
		ad.addrs = append(ad.addrs, ap)
		if !exempt && !isPublic(ip) {
			return admission{addrs: []netip.AddrPort{ap}, reason: ReasonNotPublic, detail: ip.String()}
		}
		if p.isSelf(ap) {
			return admission{addrs: []netip.AddrPort{ap}, reason: ReasonProxyLoop}
		}
	}
	return ad
}

// dial connects to the first checked address that answers and records
// it. On failure it answers the client.
func (s *session) dial(addrs []netip.AddrPort) bool {
	var last error
	for _, ap := range addrs {
		ctx, cancel := context.WithTimeout(s.p.ctx, s.p.lim.DialTimeout)
		c, err := s.p.dial(ctx, "tcp", ap.String())
		cancel()
		if err != nil {
			last = err
			continue
		}
		s.rec.Addr = ap
		if !s.p.track(c, false) {
			s.refuse(ReasonClosed, "")
			return false
		}
		s.origin = &countConn{Conn: c}
		s.rec.Decision = Allowed
		return true
	}
	if s.p.isClosed() {
		s.refuse(ReasonClosed, "")
		return false
	}
	if len(addrs) > 0 {
		s.rec.Addr = addrs[0]
	}
	s.refuse(ReasonDial, fmt.Sprint(last))
	return false
}

// check runs Inspect; a panic in it refuses.
func (p *Proxy) check(where, text string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("inspect %s failed", where)
		}
	}()
	return p.inspect(where, text)
}

// errHeaderTooLarge is what limitReader returns past its bound.
var errHeaderTooLarge = errors.New("header too large")

// limitReader bounds the bytes read while on.
type limitReader struct {
	r   io.Reader
	n   int
	on  bool
	hit bool
}

func (l *limitReader) Read(b []byte) (int, error) {
	if !l.on {
		return l.r.Read(b)
	}
	if l.n <= 0 {
		l.hit = true
		return 0, errHeaderTooLarge
	}
	if len(b) > l.n {
		b = b[:l.n]
	}
	n, err := l.r.Read(b)
	l.n -= n
	return n, err
}

// countConn counts the bytes sent to (up) and received from (down) the
// origin.
type countConn struct {
	net.Conn
	up, down atomic.Int64
}

func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.down.Add(int64(n))
	return n, err
}

func (c *countConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.up.Add(int64(n))
	return n, err
}

func (c *countConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}
