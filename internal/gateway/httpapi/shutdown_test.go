package httpapi

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// heldGate holds evaluations of session "held" until released (or, with
// untilCancel, until their context ends), then asks the real gate.
type heldGate struct {
	Gate
	entered     chan struct{}
	release     chan struct{}
	untilCancel bool
}

func (g *heldGate) Evaluate(ctx context.Context, r shield.Request) verdict.Verdict {
	if r.Session == "held" {
		close(g.entered)
		if g.untilCancel {
			<-ctx.Done()
		} else {
			<-g.release
		}
	}
	return g.Gate.Evaluate(ctx, r)
}

func holdGate(g *heldGate) gateWrap {
	return func(real Gate) Gate { g.Gate = real; return g }
}

type result struct {
	v   Verdict
	err error
}

// TestShutdownDrains: a request in flight when the server is told to stop
// is answered; new connections are refused meanwhile; Serve returns after
// it, and the decision is in the audit chain once the workspace closes.
func TestShutdownDrains(t *testing.T) {
	held := &heldGate{entered: make(chan struct{}), release: make(chan struct{})}
	ts := startServer(t, Config{ShutdownGrace: 30 * time.Second}, holdGate(held))
	got := make(chan result, 1)
	go func() {
		v, err := post[Verdict](http.DefaultClient, ts.url+"/v1/evaluate",
			EvaluateRequest{ID: "in-flight", Session: "held", Type: "read_file", Payload: payload("path", ts.root+"/a.go")})
		got <- result{v, err}
	}()
	<-held.entered
	ts.cancel()
	addr := ts.url[len("http://"):]
	waitFor(t, "the listener to close", func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case err := <-ts.done:
		t.Fatalf("Serve returned with a request in flight: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(held.release)
	r := <-got
	if r.err != nil || r.v.ID != "in-flight" || r.v.Decision != verdict.Allow {
		t.Fatalf("in-flight request: got %+v, %v; want its ALLOW", r.v, r.err)
	}
	if err := <-ts.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	ts.done <- nil // for stop
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	assertAudited(t, ts.root, "held", verdict.Allow)
}

// TestShutdownGraceOver: a request still running when the grace period
// ends has its context cancelled; the gate blocks it (and audits the
// BLOCK) and Serve waits for that before returning.
func TestShutdownGraceOver(t *testing.T) {
	held := &heldGate{entered: make(chan struct{}), untilCancel: true}
	ts := startServer(t, Config{ShutdownGrace: 50 * time.Millisecond}, holdGate(held))
	got := make(chan result, 1)
	go func() {
		v, err := post[Verdict](http.DefaultClient, ts.url+"/v1/evaluate",
			EvaluateRequest{ID: "cut", Session: "held", Type: "read_file", Payload: payload("path", ts.root+"/a.go")})
		got <- result{v, err}
	}()
	<-held.entered
	ts.cancel()
	if err := <-ts.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if r := <-got; r.err == nil && r.v.Decision == verdict.Allow {
		t.Fatalf("a request cut by shutdown was allowed: %+v", r.v)
	}
	ts.done <- nil
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	assertAudited(t, ts.root, "held", verdict.Block)
}

// TestServeRefusesAfterDrain: once drained, a handler reached by a late
// request answers 503 instead of using a closing workspace.
func TestServeRefusesAfterDrain(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ts.srv.drain()
	code, body, _ := ts.do(t, "GET", "/healthz", "", false)
	if code != http.StatusServiceUnavailable {
		t.Errorf("got %d %s, want 503", code, body)
	}
}

func assertAudited(t *testing.T, root, session string, want verdict.Decision) {
	t.Helper()
	for _, e := range auditEntries(t, root) {
		if e.Session == session && (e.Type == audit.ActionEvaluated || e.Type == audit.ActionBlocked) {
			if e.Decision != want.String() {
				t.Errorf("audit: got %s for %s, want %v", e.Decision, session, want)
			}
			return
		}
	}
	t.Errorf("audit: no decision for session %s", session)
}

func TestCheckAddr(t *testing.T) {
	cases := []struct {
		addr        string
		allowRemote bool
		wantRemote  bool
		wantErr     bool
	}{
		{"127.0.0.1:7420", false, false, false},
		{"127.0.0.2:0", false, false, false},
		{"[::1]:7420", false, false, false},
		{"localhost:7420", false, false, false},
		{"0.0.0.0:7420", false, true, true},
		{":7420", false, true, true},
		{"192.168.1.10:7420", false, true, true},
		{"example.com:7420", false, true, true},
		{"0.0.0.0:7420", true, true, false},
		{"[::]:7420", true, true, false},
		{"127.0.0.1", false, false, true},
		{"127.0.0.1:", false, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			remote, err := CheckAddr(tc.addr, tc.allowRemote)
			if (err != nil) != tc.wantErr || (err == nil && remote != tc.wantRemote) {
				t.Errorf("got remote=%v err=%v, want remote=%v err=%v", remote, err, tc.wantRemote, tc.wantErr)
			}
		})
	}
}

func TestListen(t *testing.T) {
	ln, remote, err := Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil || remote {
		t.Fatalf("got remote=%v err=%v, want a loopback listener", remote, err)
	}
	ln.Close()
	if _, _, err := Listen(context.Background(), "0.0.0.0:0", false); err == nil {
		t.Error("0.0.0.0 without allowRemote: got a listener")
	}
}
