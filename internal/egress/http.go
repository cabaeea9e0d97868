package egress

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"
)

// serveHTTP reads one request: CONNECT opens a tunnel, an absolute-form
// http:// request is forwarded, anything else is refused.
func (p *Proxy) serveHTTP(s *session) {
	req, err := http.ReadRequest(s.br)
	if err != nil {
		s.refuse(s.readReason(err), "")
		return
	}
	s.lr.on = false
	if req.Method == http.MethodConnect {
		s.rec.Protocol = ProtoConnect
		p.serveConnect(s, req)
		return
	}
	s.rec.Protocol = ProtoHTTP
	p.serveForward(s, req)
}

// serveConnect opens a tunnel to the CONNECT target.
func (p *Proxy) serveConnect(s *session, req *http.Request) {
	t, err := parseHostPort(req.RequestURI)
	if err != nil {
		s.refuse(ReasonBadRequest, "connect target: "+err.Error())
		return
	}
	if err := p.check("url", req.RequestURI); err != nil {
		s.rec.Host = Withheld
		s.refuse(ReasonDLP, err.Error())
		return
	}
	addrs, ok := s.admit(t)
	if !ok || !s.dial(addrs) {
		return
	}
	s.endHeader()
	s.answered = true
	_ = s.c.SetWriteDeadline(time.Now().Add(p.lim.IdleTimeout))
	if _, err := io.WriteString(s.c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	s.relay()
}

// serveForward forwards one absolute-form http:// request: the URL, the
// headers and the whole body are inspected before the origin is dialled.
func (p *Proxy) serveForward(s *session, req *http.Request) {
	u := req.URL
	if !u.IsAbs() || u.Host == "" {
		s.refuse(ReasonOriginForm, "")
		return
	}
	if !strings.EqualFold(u.Scheme, "http") {
		s.refuse(ReasonScheme, u.Scheme)
		return
	}
	if err := p.check("url", req.RequestURI); err != nil {
		s.refuse(ReasonDLP, err.Error())
		return
	}
	port := uint16(80)
	if ps := u.Port(); ps != "" {
		n, err := parsePort(ps)
		if err != nil {
			s.refuse(ReasonBadRequest, err.Error())
			return
		}
		port = n
	}
	t, err := parseTarget(u.Hostname(), port)
	if err != nil {
		s.refuse(ReasonBadRequest, "url host: "+err.Error())
		return
	}
	addrs, ok := s.admit(t)
	if !ok {
		return
	}
	body, ok := s.readBody(req)
	if !ok {
		return
	}
	if !s.dial(addrs) {
		return
	}
	s.forward(req, body)
}

// readBody strips hop-by-hop headers, inspects the remaining headers and
// reads and inspects the whole body (at most MaxBody bytes, chunked or
// not). On refusal it answers the client.
func (s *session) readBody(req *http.Request) ([]byte, bool) {
	stripHop(req.Header)
	expect := strings.EqualFold(req.Header.Get("Expect"), "100-continue")
	req.Header.Del("Expect")
	if err := s.p.check("header", headerText(req.Header)); err != nil {
		s.refuse(ReasonDLP, err.Error())
		return nil, false
	}
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true
	}
	max := s.p.lim.MaxBody
	if req.ContentLength > int64(max) {
		s.refuse(ReasonBodyTooLarge, "")
		return nil, false
	}
	_ = s.c.SetDeadline(time.Now().Add(s.p.lim.HeaderTimeout))
	if expect {
		_, _ = io.WriteString(s.c, "HTTP/1.1 100 Continue\r\n\r\n")
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, int64(max)+1))
	if err != nil {
		s.refuse(s.readReason(err), "body: "+err.Error())
		return nil, false
	}
	if len(body) > max {
		s.refuse(ReasonBodyTooLarge, "")
		return nil, false
	}
	if err := s.p.check("body", string(body)); err != nil {
		s.refuse(ReasonDLP, err.Error())
		return nil, false
	}
	return body, true
}

// forward sends req with body to the origin in origin form and copies
// the response back; one request per connection.
func (s *session) forward(req *http.Request, body []byte) {
	s.endHeader()
	req.Body, req.ContentLength, req.TransferEncoding = nil, 0, nil
	if body != nil {
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	req.RequestURI, req.Close = "", true
	idle := s.p.lim.IdleTimeout
	origin := &idleConn{Conn: s.origin, d: idle}
	w := bufio.NewWriter(origin)
	if err := req.Write(w); err != nil || w.Flush() != nil {
		s.fail(ReasonUpstream, "write request")
		return
	}
	olr := &limitReader{r: origin, n: s.p.lim.MaxHeaderBytes, on: true}
	resp, err := readResponse(bufio.NewReader(olr), req)
	if err != nil {
		s.fail(ReasonUpstream, "read response: "+err.Error())
		return
	}
	defer resp.Body.Close()
	olr.on = false
	stripHop(resp.Header)
	resp.Close = true
	s.answered = true
	_ = resp.Write(&idleConn{Conn: s.c, d: idle})
}

// readResponse reads the final response, skipping 1xx ones.
func readResponse(r *bufio.Reader, req *http.Request) (*http.Response, error) {
	for {
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
		_ = resp.Body.Close()
	}
}

// fail answers the client after the origin was reached: the decision
// stays allowed (bytes may have gone up); the record says what failed.
func (s *session) fail(r Reason, detail string) {
	s.rec.Detail = string(r) + ": " + detail
	if s.answered {
		return
	}
	s.answered = true
	_ = s.c.SetWriteDeadline(time.Now().Add(time.Second))
	writeHTTPRefusal(s.c, answerFor(r).status, r)
}

// hopHeaders are removed in both directions, with the headers the
// Connection header names and every Proxy-* header.
var hopHeaders = [...]string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

func stripHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				h.Del(f)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(k, "Proxy-") {
			delete(h, k)
		}
	}
}

// headerText renders headers one per line, sorted, for Inspect.
func headerText(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

// idleConn refreshes the deadline before every read and write.
type idleConn struct {
	net.Conn
	d time.Duration
}

func (c *idleConn) Read(b []byte) (int, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.d))
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.d))
	return c.Conn.Write(b)
}
