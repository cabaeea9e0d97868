package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// spareRefusers bounds the goroutines that answer connections arriving
// while MaxConns are being served; past them a connection is closed
// unanswered (and audited).
const spareRefusers = 16

// Proxy is the egress proxy of one command (or one session). Its
// lifecycle: New checks the configuration and starts nothing; Serve
// serves one listener until it is closed (it may be called for several
// listeners); Close closes the listeners, ends every live connection and
// returns when their goroutines have ended.
type Proxy struct {
	rules   rules
	lim     Limits
	inspect func(where, text string) error
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	audit   func(Conn)
	now     func() time.Time

	ctx    context.Context // cancelled by Close: ends resolves and dials
	cancel context.CancelFunc
	slots  chan struct{} // one per connection served
	spare  chan struct{} // one per too_many_connections answer in flight

	mu     sync.Mutex
	closed bool
	lns    map[net.Listener]bool // served listeners; true: a proxy's own (Serve), a target no request may name
	conns  map[net.Conn]struct{} // client and origin sockets, for Close
	wg     sync.WaitGroup        // connection goroutines
}

// New checks cfg and returns a proxy. A bad Hosts or Registries entry or
// a negative limit is an error.
func New(cfg Config) (*Proxy, error) {
	rs, err := compileRules(cfg.Hosts, cfg.Registries)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	lim, err := cfg.Limits.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &Proxy{rules: rs, lim: lim, inspect: cfg.Inspect, resolve: cfg.Resolve, dial: cfg.Dial,
		audit: cfg.Audit, now: cfg.Now,
		slots: make(chan struct{}, lim.MaxConns), spare: make(chan struct{}, spareRefusers),
		lns: map[net.Listener]bool{}, conns: map[net.Conn]struct{}{}}
	if p.inspect == nil {
		if p.inspect, err = dlpInspect(); err != nil {
			return nil, fmt.Errorf("egress proxy: %w", err)
		}
	}
	if p.resolve == nil {
		p.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if p.dial == nil {
		p.dial = (&net.Dialer{Timeout: lim.DialTimeout}).DialContext
	}
	if p.now == nil {
		p.now = time.Now
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Serve accepts connections on ln and serves each in its own goroutine.
// It returns nil when ln is closed (by the caller or by Close), and an
// error when Accept fails otherwise or the proxy was closed before. Live connections outlive Serve;
// Close ends them.
func (p *Proxy) Serve(ln net.Listener) error { return p.serve(ln, true, p.handle) }

// Relay serves ln like Serve, but each connection is a plain stream to
// target, which the rules must allow as any target (a literal registry
// entry: a local mirror on loopback). It is for clients that never use a
// proxy for a loopback address (Go's, npm's): their connection to that
// address, inside a command's network namespace, arrives here. The
// stream is relayed as a CONNECT tunnel is: idle timeout, a proxy
// handshake inside it refused, bytes counted, one Conn record
// (ProtoForward).
func (p *Proxy) Relay(ln net.Listener, target netip.AddrPort) error {
	// Not a proxy address: the relay's listener is where target's own
	// clients connect (in a command's network namespace, the same
	// address as target on the host).
	return p.serve(ln, false, func(c net.Conn) { p.handleRelay(c, target) })
}

func (p *Proxy) serve(ln net.Listener, self bool, handle func(net.Conn)) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = ln.Close()
		return errClosed
	}
	p.lns[ln] = self
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.lns, ln)
		p.mu.Unlock()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || p.isClosed() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return fmt.Errorf("egress proxy: accept: %w", err)
		}
		p.start(c, handle)
	}
}

// Close closes the listeners being served, ends every live connection
// and waits for their goroutines. It may be called more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.cancel()
		for ln := range p.lns {
			_ = ln.Close()
		}
		for c := range p.conns {
			_ = c.Close()
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// start serves c within MaxConns, or answers it with
// too_many_connections.
func (p *Proxy) start(c net.Conn, handle func(net.Conn)) {
	select {
	case p.slots <- struct{}{}:
		p.spawn(c, func() {
			defer func() { <-p.slots }()
			handle(c)
		})
		return
	default:
	}
	select {
	case p.spare <- struct{}{}:
		p.spawn(c, func() {
			defer func() { <-p.spare }()
			p.refuseBusy(c)
		})
	default:
		_ = c.Close()
		if p.audit != nil {
			now := p.now()
			p.audit(Conn{Decision: Refused, Reason: ReasonTooManyConns, Start: now})
		}
	}
}

// spawn runs fn for c in a goroutine Close waits for; c is closed after
// fn. When the proxy is closed it closes c instead.
func (p *Proxy) spawn(c net.Conn, fn func()) {
	if !p.track(c, true) {
		return
	}
	go func() {
		defer p.wg.Done()
		defer p.untrack(c)
		fn()
	}()
}

// track registers c for Close, and a goroutine Close waits for when
// goroutine is set (under the lock, so never after Close began waiting).
// It closes c and returns false when the proxy is closed.
func (p *Proxy) track(c net.Conn, goroutine bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	if goroutine {
		p.wg.Add(1)
	}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

// isSelf reports whether ap is an address the proxy listens on.
func (p *Proxy) isSelf(ap netip.AddrPort) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := ap.Addr().Unmap()
	for ln, self := range p.lns {
		ta, ok := ln.Addr().(*net.TCPAddr)
		if !ok || !self {
			continue
		}
		la := ta.AddrPort()
		if la.Port() != ap.Port() {
			continue
		}
		l := la.Addr().Unmap()
		if l == a || (l.IsUnspecified() && (a.IsLoopback() || a.IsUnspecified())) {
			return true
		}
	}
	return false
}

// handle serves one client connection.
func (p *Proxy) handle(c net.Conn) {
	s := p.newSession(c)
	defer s.finish()
	b, err := s.br.Peek(1)
	if err != nil {
		s.refuse(s.readReason(err), "")
		return
	}
	if b[0] == socksVersion {
		p.serveSOCKS(s)
		return
	}
	p.serveHTTP(s)
}

// handleRelay relays c to target once the rules allow it.
func (p *Proxy) handleRelay(c net.Conn, target netip.AddrPort) {
	s := p.newSession(c)
	defer s.finish()
	s.rec.Protocol = ProtoForward
	t, err := parseTarget(target.Addr().String(), target.Port())
	if err != nil {
		s.refuse(ReasonBadRequest, "relay target: "+err.Error())
		return
	}
	addrs, ok := s.admit(t)
	if !ok || !s.dial(addrs) {
		return
	}
	s.endHeader()
	s.answered = true
	s.relay()
}

// refuseBusy answers a connection over MaxConns in the client's protocol.
func (p *Proxy) refuseBusy(c net.Conn) {
	s := p.newSession(c)
	defer s.finish()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if b, err := s.br.Peek(1); err == nil && b[0] == socksVersion {
		s.rec.Protocol = ProtoSOCKS5
	}
	s.refuse(ReasonTooManyConns, "")
}

func (p *Proxy) newSession(c net.Conn) *session {
	s := &session{p: p, c: c, rec: Conn{Start: p.now()}}
	s.lr = &limitReader{r: c, n: p.lim.MaxHeaderBytes, on: true}
	s.br = bufio.NewReaderSize(s.lr, 4096)
	_ = c.SetDeadline(time.Now().Add(p.lim.HeaderTimeout))
	return s
}
