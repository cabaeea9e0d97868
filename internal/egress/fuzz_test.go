package egress

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"
)

// FuzzHandshake feeds arbitrary client bytes to one connection: no
// panic (a recovered one would be internal_error), one audit record, and
// nothing is dialled but the checked public address of an allowed name.
func FuzzHandshake(f *testing.F) {
	for _, s := range []string{
		"CONNECT api.example:443 HTTP/1.1\r\nHost: api.example\r\n\r\n\x16\x03\x01",
		"CONNECT api.example:443 HTTP/1.1\r\n\r\nCONNECT evil.example:443 HTTP/1.1\r\n\r\n",
		"GET http://api.example/x?a=1 HTTP/1.1\r\nHost: api.example\r\n\r\n",
		"POST http://api.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"GET /x HTTP/1.1\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x03\x0bapi.example\x01\xbb",
		"\x05\x01\x00\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50",
		"\x05\x01\x00\x05\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\xbb",
		"\x05\x00",
		"",
	} {
		f.Add([]byte(s))
	}
	allowed := netip.AddrPortFrom(publicAddr, 443)
	f.Fuzz(func(t *testing.T, in []byte) {
		var recs []Conn
		p, err := New(Config{
			Hosts: []string{"api.example:443"},
			Resolve: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{publicAddr}, nil
			},
			Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
				if addr != allowed.String() {
					t.Errorf("dialled %s, want only %s", addr, allowed)
				}
				return nil, errors.New("no network while fuzzing")
			},
			Audit:  func(c Conn) { recs = append(recs, c) },
			Limits: Limits{HeaderTimeout: time.Second, MaxBody: 1024, MaxHeaderBytes: 4096},
		})
		if err != nil {
			t.Fatal(err)
		}
		p.handle(&scriptConn{r: bytes.NewReader(in)})
		if len(recs) != 1 {
			t.Fatalf("got %d records, want 1", len(recs))
		}
		if recs[0].Reason == ReasonInternal {
			t.Fatalf("internal error: %+v", recs[0])
		}
		if recs[0].Decision == Allowed {
			t.Fatalf("allowed with no origin: %+v", recs[0])
		}
	})
}

// scriptConn is a client that sends a fixed script, then EOF, and whose
// answers are discarded.
type scriptConn struct{ r *bytes.Reader }

func (c *scriptConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c *scriptConn) Write(b []byte) (int, error)      { return len(b), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
