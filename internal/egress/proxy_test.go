package egress

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// origin is an httptest server recording the requests it served.
type origin struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string // "METHOD URI body" per request
	hdrs []http.Header
	host []string
}

func newOrigin(t *testing.T, tlsOn bool) *origin {
	t.Helper()
	o := &origin{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		o.mu.Lock()
		o.reqs = append(o.reqs, r.Method+" "+r.RequestURI+" "+string(b))
		o.hdrs = append(o.hdrs, r.Header.Clone())
		o.host = append(o.host, r.Host)
		o.mu.Unlock()
		_, _ = io.WriteString(w, "hello from origin")
	})
	if tlsOn {
		o.Server = httptest.NewTLSServer(h)
	} else {
		o.Server = httptest.NewServer(h)
	}
	t.Cleanup(o.Close)
	return o
}

func (o *origin) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.reqs...)
}

func hostPort(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

func TestVerdictHostResolvingToNonPublicAddressIsRefused(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "fd00::1", "fe80::1",
		"64:ff9b::7f00:1", "2002:7f00:1::", "224.0.0.1"} {
		t.Run(a, func(t *testing.T) {
			snk := newSink(t, "")
			e := start(t, Config{Hosts: []string{"app.example"}},
				names{"app.example": {netip.MustParseAddr(a)}}, snk.addr())
			_, _, code := e.connect("app.example:443")
			if code != http.StatusForbidden {
				t.Errorf("CONNECT status %d, want 403", code)
			}
			rec := e.only()
			if rec.Reason != ReasonNotPublic || rec.Decision != Refused {
				t.Errorf("got %s/%s, want refused/%s", rec.Decision, rec.Reason, ReasonNotPublic)
			}
			if d := e.dialled(); len(d) != 0 {
				t.Errorf("dialled %v, want nothing", d)
			}
			if n, _ := snk.received(); n != 0 {
				t.Errorf("origin accepted %d connections, want 0", n)
			}
		})
	}
}

func TestMixedPublicAndPrivateAnswerIsRefused(t *testing.T) {
	snk := newSink(t, "")
	e := start(t, Config{Hosts: []string{"app.example"}},
		names{"app.example": {publicAddr, netip.MustParseAddr("127.0.0.1")}}, snk.addr())
	if _, _, code := e.connect("app.example:443"); code != http.StatusForbidden {
		t.Errorf("CONNECT status %d, want 403", code)
	}
	if rec := e.only(); rec.Reason != ReasonNotPublic {
		t.Errorf("reason %s, want %s", rec.Reason, ReasonNotPublic)
	}
	if n, _ := snk.received(); n != 0 {
		t.Errorf("origin accepted %d connections, want 0", n)
	}
}

func TestLiteralRegistryIsAllowed(t *testing.T) {
	o := newOrigin(t, false)
	e := start(t, Config{Registries: []string{hostPort(o.Server)}}, nil, "")
	resp, err := e.client(nil).Get(o.URL + "/pkg?v=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello from origin" {
		t.Fatalf("got %d %q, want 200 from the origin", resp.StatusCode, body)
	}
	if got := o.requests(); len(got) != 1 || got[0] != "GET /pkg?v=1 " {
		t.Errorf("origin got %q, want one GET /pkg?v=1", got)
	}
	rec := e.only()
	if rec.Protocol != ProtoHTTP || rec.Decision != Allowed || rec.Reason != ReasonRegistry ||
		rec.Addr.String() != hostPort(o.Server) {
		t.Errorf("record %+v, want allowed http registry to %s", rec, hostPort(o.Server))
	}
}

func TestLiteralRegistryTunnelsTLS(t *testing.T) {
	o := newOrigin(t, true)
	hp := strings.TrimPrefix(o.URL, "https://")
	e := start(t, Config{Registries: []string{hp}}, nil, "")
	tr := o.Client().Transport.(*http.Transport).Clone()
	resp, err := e.client(tr).Get(o.URL + "/secure")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello from origin" {
		t.Fatalf("got %d %q, want 200 from the origin", resp.StatusCode, body)
	}
	rec := e.only()
	if rec.Protocol != ProtoConnect || rec.Decision != Allowed || rec.Up == 0 || rec.Down == 0 {
		t.Errorf("record %+v, want an allowed CONNECT with bytes both ways", rec)
	}
}

func TestRegistryLiteralCoversOnlyItsPortAndAddress(t *testing.T) {
	o := newOrigin(t, false)
	other := newSink(t, "")
	e := start(t, Config{Registries: []string{hostPort(o.Server), "registry.example"}},
		names{"registry.example": {netip.MustParseAddr("127.0.0.1")}}, "")
	for _, target := range []string{
		other.addr(), // same address, another port
		fmt.Sprintf("127.0.0.2:%d", port(t, hostPort(o.Server))), // another loopback address
		"registry.example:443", // a registry name resolving to loopback
	} {
		if _, _, code := e.connect(target); code != http.StatusForbidden {
			t.Errorf("CONNECT %s: status %d, want 403", target, code)
		}
	}
	for _, r := range e.records(3) {
		if r.Decision != Refused {
			t.Errorf("record %+v, want refused", r)
		}
	}
	if n, _ := other.received(); n != 0 {
		t.Errorf("other port accepted %d connections, want 0", n)
	}
}

func TestLiteralVerdictHostMustBePublic(t *testing.T) {
	for _, tc := range []struct {
		hosts  []string
		target string
		code   int
		reason Reason
	}{
		{[]string{"93.184.215.14"}, "93.184.215.14:443", 200, ReasonVerdictHost},
		{[]string{"93.184.215.14"}, "[::ffff:93.184.215.14]:443", 200, ReasonVerdictHost},
		{[]string{"93.184.215.14:443"}, "93.184.215.14:8443", 403, ReasonHostNotAllowed},
		{[]string{"10.0.0.5"}, "10.0.0.5:443", 403, ReasonNotPublic},
		{[]string{"api.example"}, "93.184.215.14:443", 403, ReasonHostNotAllowed},
		{[]string{"93.184.215.14"}, "api.example:443", 403, ReasonHostNotAllowed},
	} {
		t.Run(tc.target, func(t *testing.T) {
			snk := newSink(t, "")
			e := start(t, Config{Hosts: tc.hosts}, names{"api.example": {publicAddr}}, snk.addr())
			c, _, code := e.connect(tc.target)
			if code != tc.code {
				t.Errorf("CONNECT %s with hosts %v: %d, want %d", tc.target, tc.hosts, code, tc.code)
			}
			_ = c.Close()
			if rec := e.only(); rec.Reason != tc.reason {
				t.Errorf("reason %s, want %s", rec.Reason, tc.reason)
			}
		})
	}
}

func TestUnknownHostIsRefused(t *testing.T) {
	snk := newSink(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	ns := names{"unknown.example": {publicAddr}, "allowed.example": {publicAddr}}
	e := start(t, Config{Hosts: []string{"allowed.example"}}, ns, snk.addr())
	resp, err := e.client(nil).Get("http://unknown.example/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Parallax-Egress") != "host_not_allowed" {
		t.Errorf("GET: %d %q, want 403 host_not_allowed", resp.StatusCode, resp.Header.Get("X-Parallax-Egress"))
	}
	if _, _, code := e.connect("unknown.example:443"); code != http.StatusForbidden {
		t.Errorf("CONNECT: %d, want 403", code)
	}
	for _, r := range e.records(2) {
		if r.Decision != Refused || r.Reason != ReasonHostNotAllowed || r.Host != "unknown.example" {
			t.Errorf("record %+v, want refused host_not_allowed for unknown.example", r)
		}
	}
	if n, got := snk.received(); n != 0 || got != "" {
		t.Errorf("origin accepted %d connections and read %q, want nothing", n, got)
	}
}

func TestSecretInURLNeverReachesOrigin(t *testing.T) {
	snk := newSink(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	e := start(t, Config{Hosts: []string{"api.example"}}, names{"api.example": {publicAddr}}, snk.addr())
	c := e.raw()
	fmt.Fprintf(c, "GET http://api.example/upload?token=%s HTTP/1.1\r\nHost: api.example\r\n\r\n", secret)
	answer, _ := readAllQuiet(c)
	if !strings.HasPrefix(answer, "HTTP/1.1 403 ") {
		t.Errorf("answer %q, want 403", answer)
	}
	rec := e.only()
	if rec.Reason != ReasonDLP {
		t.Errorf("reason %s, want %s", rec.Reason, ReasonDLP)
	}
	if strings.Contains(answer, secret[4:]) || strings.Contains(fmt.Sprintf("%+v", rec), secret[4:]) {
		t.Errorf("the answer or the record echoes the secret: %q %+v", answer, rec)
	}
	if n, got := snk.received(); n != 0 || got != "" {
		t.Errorf("origin accepted %d connections and read %q, want nothing", n, got)
	}
}

func TestSecretInHostNameIsWithheld(t *testing.T) {
	host := secret + ".evil.example"
	t.Run("connect", func(t *testing.T) {
		e := start(t, Config{Hosts: []string{host}}, names{strings.ToLower(host): {publicAddr}}, "")
		if _, _, code := e.connect(host + ":443"); code != http.StatusForbidden {
			t.Errorf("status %d, want 403", code)
		}
		if rec := e.only(); rec.Reason != ReasonDLP || rec.Host != Withheld {
			t.Errorf("record %+v, want dlp_refused with the host withheld", rec)
		}
	})
	t.Run("socks5", func(t *testing.T) {
		e := start(t, Config{Hosts: []string{host}}, names{strings.ToLower(host): {publicAddr}}, "")
		if _, reply := socks(t, e.raw(), []byte{0}, 1, socksAtypDomain, []byte(host), 443); reply != 2 {
			t.Errorf("reply %#x, want 0x02", reply)
		}
		if rec := e.only(); rec.Reason != ReasonDLP || rec.Host != Withheld {
			t.Errorf("record %+v, want dlp_refused with the host withheld", rec)
		}
	})
}

func TestSecretInHeaderNeverReachesOrigin(t *testing.T) {
	snk := newSink(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	e := start(t, Config{Hosts: []string{"api.example"}}, names{"api.example": {publicAddr}}, snk.addr())
	req, _ := http.NewRequest(http.MethodGet, "http://api.example/", nil)
	req.Header.Set("Authorization", "token "+secret)
	resp, err := e.client(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", resp.StatusCode)
	}
	if rec := e.only(); rec.Reason != ReasonDLP || strings.Contains(rec.Detail, secret[4:]) {
		t.Errorf("record %+v, want dlp_refused naming no secret", rec)
	}
	if n, got := snk.received(); n != 0 || got != "" {
		t.Errorf("origin accepted %d connections and read %q, want nothing", n, got)
	}
}

func TestSecretInBodyNeverReachesOrigin(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		chunked bool
		reason  Reason
	}{
		{"content-length", "config=1&token=" + secret, false, ReasonDLP},
		{"chunked", "config=1&token=" + secret, true, ReasonDLP},
		{"too large", strings.Repeat("a", 2048), false, ReasonBodyTooLarge},
		{"too large chunked", strings.Repeat("a", 2048), true, ReasonBodyTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snk := newSink(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			e := start(t, Config{Hosts: []string{"api.example"}, Limits: Limits{MaxBody: 1024}},
				names{"api.example": {publicAddr}}, snk.addr())
			req, _ := http.NewRequest(http.MethodPost, "http://api.example/submit", strings.NewReader(tc.body))
			if tc.chunked {
				req.ContentLength = -1
				req.Body = io.NopCloser(strings.NewReader(tc.body))
			}
			resp, err := e.client(nil).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", resp.StatusCode)
			}
			if rec := e.only(); rec.Reason != tc.reason {
				t.Errorf("reason %s, want %s", rec.Reason, tc.reason)
			}
			if n, got := snk.received(); n != 0 || got != "" {
				t.Errorf("origin accepted %d connections and read %q, want nothing", n, got)
			}
		})
	}
}

func TestCleanPostIsForwardedWithoutHopHeaders(t *testing.T) {
	o := newOrigin(t, false)
	e := start(t, Config{Hosts: []string{"api.example"}}, names{"api.example": {publicAddr}}, hostPort(o.Server))
	c := e.raw()
	fmt.Fprint(c, "POST http://API.example./submit HTTP/1.1\r\nHost: evil.example\r\n"+
		"Proxy-Authorization: Basic Zm9vOmJhcg==\r\nProxy-Token: p\r\nConnection: X-Drop\r\nX-Drop: 1\r\nX-Keep: 2\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
	answer, _ := readAllQuiet(c)
	if !strings.HasPrefix(answer, "HTTP/1.1 200 ") || !strings.HasSuffix(answer, "hello from origin") {
		t.Fatalf("answer %q, want the origin's 200", answer)
	}
	if got := o.requests(); len(got) != 1 || got[0] != "POST /submit hello" {
		t.Errorf("origin got %q, want POST /submit hello", got)
	}
	o.mu.Lock()
	h, host := o.hdrs[0], o.host[0]
	o.mu.Unlock()
	if h.Get("Proxy-Authorization") != "" || h.Get("Proxy-Token") != "" || h.Get("X-Drop") != "" || h.Get("X-Keep") != "2" {
		t.Errorf("origin headers %v, want no Proxy-* or Connection-named headers, X-Keep kept", h)
	}
	if host != "API.example." {
		t.Errorf("origin Host %q, want the URL's host", host)
	}
	if rec := e.only(); rec.Decision != Allowed || rec.Reason != ReasonVerdictHost || rec.Host != "api.example" {
		t.Errorf("record %+v, want allowed verdict_host api.example", rec)
	}
}

func TestRequestsThatAreNotProxyRequestsAreRefused(t *testing.T) {
	cases := []struct {
		name, req string
		status    string
		reason    Reason
	}{
		{"origin form", "GET /x HTTP/1.1\r\nHost: api.example\r\n\r\n", "403", ReasonOriginForm},
		{"https absolute", "GET https://api.example/ HTTP/1.1\r\nHost: api.example\r\n\r\n", "403", ReasonScheme},
		{"garbage", "\x16\x03\x01garbage\r\n\r\n", "400", ReasonBadRequest},
		{"header too large", "GET http://api.example/ HTTP/1.1\r\nX: " + strings.Repeat("a", 4096) + "\r\n\r\n", "431", ReasonHeaderTooLarge},
		{"numeric host", "GET http://2130706433/ HTTP/1.1\r\nHost: x\r\n\r\n", "400", ReasonBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snk := newSink(t, "")
			e := start(t, Config{Hosts: []string{"api.example"}, Limits: Limits{MaxHeaderBytes: 1024}},
				names{"api.example": {publicAddr}}, snk.addr())
			c := e.raw()
			_, _ = io.WriteString(c, tc.req)
			answer, _ := readAllQuiet(c)
			if !strings.HasPrefix(answer, "HTTP/1.1 "+tc.status+" ") {
				t.Errorf("answer %q, want %s", answer, tc.status)
			}
			if rec := e.only(); rec.Reason != tc.reason || rec.Decision != Refused {
				t.Errorf("record %+v, want refused %s", rec, tc.reason)
			}
			if n, _ := snk.received(); n != 0 {
				t.Errorf("origin accepted %d connections, want 0", n)
			}
		})
	}
}

func TestHeaderTimeoutIsRefused(t *testing.T) {
	e := start(t, Config{Limits: Limits{HeaderTimeout: 50 * time.Millisecond}}, nil, "")
	c := e.raw()
	_, _ = io.WriteString(c, "GET http://a.example/ HTTP/1.1\r\n") // never finished
	answer, _ := readAllQuiet(c)
	if !strings.HasPrefix(answer, "HTTP/1.1 408 ") {
		t.Errorf("answer %q, want 408", answer)
	}
	if rec := e.only(); rec.Reason != ReasonTimeout {
		t.Errorf("reason %s, want %s", rec.Reason, ReasonTimeout)
	}
}

func TestConnectInsideConnectIsRefused(t *testing.T) {
	cases := []struct {
		name, first string
		nested      bool
	}{
		{"connect", "CONNECT evil.example:443 HTTP/1.1\r\n\r\n", true},
		{"connect lowercase split", "conn", true}, // completed below
		{"socks5 greeting", "\x05\x01\x00", true},
		{"socks4", "\x04\x01\x00\x50", true},
		{"tls client hello", "\x16\x03\x01\x00\x05hello", false},
		{"plain http", "GET / HTTP/1.1\r\n\r\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snk := newSink(t, "")
			e := start(t, Config{Hosts: []string{"api.example"}}, names{"api.example": {publicAddr}}, snk.addr())
			c, br, code := e.connect("api.example:443")
			if code != 200 {
				t.Fatalf("CONNECT status %d, want 200", code)
			}
			_, _ = io.WriteString(c, tc.first)
			if tc.name == "connect lowercase split" {
				time.Sleep(20 * time.Millisecond)
				_, _ = io.WriteString(c, "ect evil.example:443 HTTP/1.1\r\n\r\n")
			}
			if !tc.nested {
				c.(*net.TCPConn).CloseWrite()
			}
			_, _ = readAllQuiet(br)
			rec := e.only()
			_, got := snk.received()
			if tc.nested {
				if rec.Reason != ReasonNestedProxy || rec.Decision != Refused {
					t.Errorf("record %+v, want refused nested_proxy", rec)
				}
				if got != "" || rec.Up != 0 {
					t.Errorf("origin read %q (up %d), want nothing", got, rec.Up)
				}
				return
			}
			if rec.Decision != Allowed || got != tc.first {
				t.Errorf("record %+v, origin read %q; want allowed and %q", rec, got, tc.first)
			}
		})
	}
}

func TestConnectToProxyItselfIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := ln.Addr().String()
	var recs []Conn
	var mu sync.Mutex
	// A registry literal naming the proxy's own address: allowed by the
	// list, refused as a loop.
	p, err := New(Config{Registries: []string{self}, Audit: func(c Conn) { mu.Lock(); recs = append(recs, c); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ln) }()
	e := &env{t: t, addr: self}
	if _, _, code := e.connect(self); code != http.StatusForbidden {
		t.Errorf("status %d, want 403", code)
	}
	_ = p.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 1 || recs[0].Reason != ReasonProxyLoop {
		t.Errorf("records %+v, want one proxy_loop", recs)
	}
}

func TestSOCKS5(t *testing.T) {
	snk := newSink(t, "pong")
	ap := netip.MustParseAddrPort(snk.addr())
	cases := []struct {
		name    string
		methods []byte
		cmd     byte
		atyp    byte
		addr    []byte
		port    uint16
		method  byte
		reply   byte
		reason  Reason
	}{
		{"domain allowed", []byte{0}, 1, socksAtypDomain, []byte("API.example"), 443, 0, 0, ReasonVerdictHost},
		{"domain refused", []byte{0}, 1, socksAtypDomain, []byte("other.example"), 443, 0, 2, ReasonHostNotAllowed},
		{"ipv4 literal registry", []byte{0}, 1, socksAtypIPv4, ap.Addr().AsSlice(), ap.Port(), 0, 0, ReasonRegistry},
		{"ipv4 loopback", []byte{0}, 1, socksAtypIPv4, []byte{127, 0, 0, 1}, 443, 0, 2, ReasonHostNotAllowed},
		{"ipv6 loopback", []byte{0}, 1, socksAtypIPv6, netip.IPv6Loopback().AsSlice(), 443, 0, 2, ReasonHostNotAllowed},
		{"bind", []byte{0}, 2, socksAtypDomain, []byte("api.example"), 443, 0, 7, ReasonSOCKSCommand},
		{"udp associate", []byte{0}, 3, socksAtypDomain, []byte("api.example"), 443, 0, 7, ReasonSOCKSCommand},
		{"password auth only", []byte{2}, 1, socksAtypDomain, []byte("api.example"), 443, 0xFF, 0xFF, ReasonSOCKSAuth},
		{"private resolution", []byte{0}, 1, socksAtypDomain, []byte("lan.example"), 443, 0, 2, ReasonNotPublic},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, Config{Hosts: []string{"api.example", "lan.example"}, Registries: []string{snk.addr()}},
				names{"api.example": {publicAddr}, "lan.example": {netip.MustParseAddr("192.168.0.10")}}, snk.addr())
			c := e.raw()
			method, reply := socks(t, c, tc.methods, tc.cmd, tc.atyp, tc.addr, tc.port)
			if method != tc.method || reply != tc.reply {
				t.Errorf("method %#x reply %#x, want %#x %#x", method, reply, tc.method, tc.reply)
			}
			if reply == 0 {
				b := make([]byte, 4)
				if _, err := io.ReadFull(c, b); err != nil || string(b) != "pong" {
					t.Errorf("read %q %v through the tunnel, want pong", b, err)
				}
			}
			_ = c.Close()
			rec := e.only()
			if rec.Protocol != ProtoSOCKS5 || rec.Reason != tc.reason {
				t.Errorf("record %+v, want socks5 %s", rec, tc.reason)
			}
		})
	}
}

func TestAuditCountsBytesBothWays(t *testing.T) {
	const up, down = 100_000, 3_000
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		_, _ = c.Write([]byte(strings.Repeat("d", down)))
		got <- n
	}()
	e := start(t, Config{Hosts: []string{"bytes.example"}}, names{"bytes.example": {publicAddr}}, ln.Addr().String())
	c, br, code := e.connect("bytes.example:443")
	if code != 200 {
		t.Fatalf("CONNECT status %d", code)
	}
	if _, err := c.Write([]byte(strings.Repeat("u", up))); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	back, err := readAllQuiet(br)
	if err != nil || len(back) != down {
		t.Fatalf("read %d bytes (%v), want %d", len(back), err, down)
	}
	if n := <-got; n != up {
		t.Errorf("origin read %d bytes, want %d", n, up)
	}
	rec := e.only()
	if rec.Up != up || rec.Down != down {
		t.Errorf("record up %d down %d, want %d %d", rec.Up, rec.Down, up, down)
	}
	if rec.Duration <= 0 || rec.Start.IsZero() {
		t.Errorf("record start %v duration %v, want both set", rec.Start, rec.Duration)
	}
}

func TestDialUsesTheCheckedAddress(t *testing.T) {
	snk := newSink(t, "")
	var calls atomic.Int32
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{publicAddr}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil // rebound
	}
	e := start(t, Config{Hosts: []string{"rebind.example"}, Resolve: resolve}, nil, snk.addr())
	c, _, code := e.connect("rebind.example:8443")
	if code != 200 {
		t.Fatalf("CONNECT status %d, want 200", code)
	}
	_ = c.Close()
	rec := e.only()
	want := netip.AddrPortFrom(publicAddr, 8443).String()
	if d := e.dialled(); len(d) != 1 || d[0] != want {
		t.Errorf("dialled %v, want exactly [%s]", d, want)
	}
	if rec.Addr.String() != want || calls.Load() != 1 {
		t.Errorf("record addr %s after %d resolves, want %s after 1", rec.Addr, calls.Load(), want)
	}
}

func TestTooManyConnectionsAreAnswered(t *testing.T) {
	snk := newSink(t, "")
	e := start(t, Config{Hosts: []string{"api.example"}, Limits: Limits{MaxConns: 1}},
		names{"api.example": {publicAddr}}, snk.addr())
	c1, _, code := e.connect("api.example:443")
	if code != 200 {
		t.Fatalf("first CONNECT %d, want 200", code)
	}
	_, _, code = e.connect("api.example:443")
	if code != http.StatusServiceUnavailable {
		t.Errorf("second CONNECT %d, want 503", code)
	}
	if rec := e.only(); rec.Reason != ReasonTooManyConns {
		t.Errorf("reason %s, want %s", rec.Reason, ReasonTooManyConns)
	}
	_ = c1.Close()
}

func TestCloseEndsLiveTunnels(t *testing.T) {
	snk := newSink(t, "")
	e := start(t, Config{Hosts: []string{"api.example"}}, names{"api.example": {publicAddr}}, snk.addr())
	before := runtime.NumGoroutine() // includes Serve's, which Close ends
	var conns []net.Conn
	for range 5 {
		c, _, code := e.connect("api.example:443")
		if code != 200 {
			t.Fatalf("CONNECT %d", code)
		}
		_, _ = io.WriteString(c, "\x16\x03\x01 held open")
		conns = append(conns, c)
	}
	done := make(chan struct{})
	go func() { _ = e.p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return with tunnels open")
	}
	for _, c := range conns {
		if _, err := readAllQuiet(c); isTimeout(err) {
			t.Errorf("tunnel not ended by Close: %v", err)
		}
	}
	if recs := e.records(5); len(recs) != 5 {
		t.Errorf("got %d records, want 5", len(recs))
	}
	for _, c := range conns {
		_ = c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() >= before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, want fewer than %d", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestIdleTunnelIsClosed(t *testing.T) {
	snk := newSink(t, "")
	e := start(t, Config{Hosts: []string{"api.example"}, Limits: Limits{IdleTimeout: 100 * time.Millisecond}},
		names{"api.example": {publicAddr}}, snk.addr())
	c, br, code := e.connect("api.example:443")
	if code != 200 {
		t.Fatalf("CONNECT %d", code)
	}
	_ = c
	start := time.Now()
	_, _ = readAllQuiet(br)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("idle tunnel lived %v", d)
	}
	if rec := e.only(); rec.Decision != Allowed {
		t.Errorf("record %+v, want allowed", rec)
	}
}

func TestNewRejectsBadEntries(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"wildcard", Config{Hosts: []string{"*.example.com"}}},
		{"url", Config{Hosts: []string{"https://example.com"}}},
		{"port 0", Config{Registries: []string{"127.0.0.1:0"}}},
		{"unspecified literal", Config{Registries: []string{"0.0.0.0:80"}}},
		{"numeric tld", Config{Hosts: []string{"127.1"}}},
		{"negative limit", Config{Limits: Limits{MaxConns: -1}}},
		{"empty", Config{Hosts: []string{""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if p, err := New(tc.cfg); err == nil {
				_ = p.Close()
				t.Errorf("New(%+v) succeeded, want an error", tc.cfg)
			}
		})
	}
}

func TestIsPublic(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true}, {"8.8.8.8", true}, {"2606:4700::1111", true},
		{"127.0.0.1", false}, {"10.0.0.1", false}, {"100.64.0.1", false}, {"100.127.255.255", false},
		{"100.128.0.1", true}, {"169.254.169.254", false}, {"::ffff:169.254.169.254", false},
		{"::ffff:8.8.8.8", true}, {"fd12::1", false}, {"fec0::1", false}, {"::", false}, {"::1", false},
		{"::127.0.0.1", false}, {"255.255.255.255", false}, {"198.18.0.1", false}, {"2001:db8::1", false},
	} {
		if got := isPublic(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("isPublic(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
