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
	"net/url"
	"sync"
	"testing"
	"time"
)

// secret is a GitHub token shape the dlp package detects.
const secret = "ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"

// publicAddr is a public address names resolve to in tests; the injected
// Dial sends it to a loopback server.
var publicAddr = netip.MustParseAddr("93.184.215.14")

// env is a proxy under test with its audit records and dials.
type env struct {
	t     *testing.T
	p     *Proxy
	addr  string // the proxy's listening address
	mu    sync.Mutex
	recs  []Conn
	dials []string // addresses the proxy dialled
	cond  *sync.Cond
}

// names maps host names to addresses for a fake Resolve.
type names map[string][]netip.Addr

// start serves a proxy for cfg on loopback. When cfg.Resolve is nil it
// resolves with names; when redirect is set, Dial records the address
// and connects to redirect instead.
func start(t *testing.T, cfg Config, ns names, redirect string) *env {
	t.Helper()
	e := &env{t: t}
	e.cond = sync.NewCond(&e.mu)
	if cfg.Resolve == nil {
		cfg.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := ns[host]; ok {
				return a, nil
			}
			return nil, fmt.Errorf("no such host %s", host)
		}
	}
	if cfg.Dial == nil {
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			e.mu.Lock()
			e.dials = append(e.dials, addr)
			e.mu.Unlock()
			if redirect != "" {
				addr = redirect
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
	}
	cfg.Audit = func(c Conn) {
		e.mu.Lock()
		e.recs = append(e.recs, c)
		e.cond.Broadcast()
		e.mu.Unlock()
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.p, e.addr = p, ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- p.Serve(ln) }()
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return e
}

// records waits for n audit records and returns them.
func (e *env) records(n int) []Conn {
	e.t.Helper()
	deadline := time.AfterFunc(5*time.Second, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.recs) < n {
		if time.Since(start) > 5*time.Second {
			e.t.Fatalf("got %d audit records, want %d: %+v", len(e.recs), n, e.recs)
		}
		e.cond.Wait()
	}
	return append([]Conn(nil), e.recs...)
}

// last waits for the first record and returns it.
func (e *env) only() Conn {
	e.t.Helper()
	return e.records(1)[0]
}

func (e *env) dialled() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.dials...)
}

// client returns an http.Client that uses the proxy.
func (e *env) client(tr *http.Transport) *http.Client {
	if tr == nil {
		tr = &http.Transport{}
	}
	u, _ := url.Parse("http://" + e.addr)
	tr.Proxy = http.ProxyURL(u)
	tr.DisableKeepAlives = true
	e.t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// raw opens a plain connection to the proxy.
func (e *env) raw() net.Conn {
	e.t.Helper()
	c, err := net.DialTimeout("tcp", e.addr, 5*time.Second)
	if err != nil {
		e.t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}

// connect sends CONNECT target and returns the status code and the
// reader positioned after the response header.
func (e *env) connect(target string) (net.Conn, *bufio.Reader, int) {
	e.t.Helper()
	c := e.raw()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		e.t.Fatalf("CONNECT %s: %v", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = c.Close() // a refusal: the proxy need not wait for more
	}
	return c, br, resp.StatusCode
}

// sink is a raw TCP server that records every connection and the bytes
// it received, and answers each with reply (then closes).
type sink struct {
	ln    net.Listener
	mu    sync.Mutex
	conns int
	got   []byte
	wg    sync.WaitGroup
}

func newSink(t *testing.T, reply string) *sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				if reply != "" {
					_, _ = io.WriteString(c, reply)
				}
				b, _ := io.ReadAll(c)
				s.mu.Lock()
				s.got = append(s.got, b...)
				s.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); s.wg.Wait() })
	return s
}

func (s *sink) addr() string { return s.ln.Addr().String() }

// received returns what the sink accepted and read so far.
func (s *sink) received() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, string(s.got)
}

// socks performs a SOCKS5 greeting with methods and a request, and
// returns the method selected and the reply code (0xFF when none).
func socks(t *testing.T, c net.Conn, methods []byte, cmd, atyp byte, addr []byte, port uint16) (byte, byte) {
	t.Helper()
	_, _ = c.Write(append([]byte{5, byte(len(methods))}, methods...))
	var sel [2]byte
	if _, err := io.ReadFull(c, sel[:]); err != nil {
		t.Fatalf("method selection: %v", err)
	}
	if sel[1] == 0xFF {
		return sel[1], 0xFF
	}
	req := []byte{5, cmd, 0, atyp}
	if atyp == socksAtypDomain {
		req = append(req, byte(len(addr)))
	}
	req = append(req, addr...)
	req = append(req, byte(port>>8), byte(port))
	_, _ = c.Write(req)
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	return sel[1], rep[1]
}

// readAllQuiet reads until EOF or error, for "the proxy closed it".
func readAllQuiet(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return string(b), err
}

func port(t *testing.T, hostport string) uint16 {
	t.Helper()
	ap, err := netip.ParseAddrPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	return ap.Port()
}
