package egress

import (
	"io"
	"net"
	"net/netip"
	"testing"
)

// relayTo serves e's proxy's Relay to target on a listener of its own and
// returns its address.
func relayTo(t *testing.T, e *env, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- e.p.Relay(ln, netip.MustParseAddrPort(target)) }()
	t.Cleanup(func() {
		_ = ln.Close()
		if err := <-served; err != nil {
			t.Errorf("Relay: %v", err)
		}
	})
	return ln.Addr().String()
}

// A relayed address reaches its target only when the rules allow it (a
// literal registry entry): the stream is carried and counted; any other
// target is refused and hears nothing.
func TestRelayCarriesOnlyAnAllowedTarget(t *testing.T) {
	allowed, other := newSink(t, "mirror"), newSink(t, "other")
	e := start(t, Config{Registries: []string{allowed.addr()}}, nil, "")
	c, err := net.Dial("tcp", relayTo(t, e, allowed.addr()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "GET /x"); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "mirror" {
		t.Fatalf("through the relay: %q", got)
	}
	rec := e.only()
	if rec.Protocol != ProtoForward || rec.Decision != Allowed || rec.Up != 6 || rec.Down != 6 {
		t.Fatalf("record: %+v", rec)
	}
	if n, body := allowed.received(); n != 1 || body != "GET /x" {
		t.Fatalf("the mirror received %d connections, %q", n, body)
	}

	c, err = net.Dial("tcp", relayTo(t, e, other.addr()))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(c)
	c.Close()
	if recs := e.records(2); recs[1].Decision != Refused {
		t.Fatalf("a target outside the rules: %+v", recs[1])
	}
	if n, _ := other.received(); n != 0 {
		t.Fatalf("the other listener accepted %d connections", n)
	}
}
