package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// fakeClock is a Clock that moves only when told; timers fire in Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

// Advance moves the clock and runs the timers that are due, in order.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// seqIDs returns id-1, id-2, …
func seqIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("id-%d", n.Add(1)) }
}

// hashOf is a well-formed action hash derived from seed.
func hashOf(seed string) string {
	s := sha256.Sum256([]byte(seed))
	return "sha256:" + hex.EncodeToString(s[:])
}

// openAudit opens a real audit log in a temporary workspace.
func openAudit(t testing.TB, clock func() time.Time) (*audit.Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".parallax", "audit.jsonl")
	l, err := audit.Open(path, audit.Options{Clock: clock})
	if err != nil {
		t.Fatalf("open audit log: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l, path
}

// entries reads the log back and checks the chain.
func entries(t testing.TB, path string) []audit.Entry {
	t.Helper()
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("verify audit log: %v", err)
	}
	var out []audit.Entry
	if err := audit.Scan(path, audit.Filter{}, func(e audit.Entry) error { out = append(out, e); return nil }); err != nil {
		t.Fatalf("scan audit log: %v", err)
	}
	return out
}

// types lists the event types of entries, with the rule, e.g.
// "ActionApproved/approval_allowed".
func types(es []audit.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Type) + "/" + e.Rule
	}
	return out
}

// rig is a broker on a fake clock with a real audit log.
type rig struct {
	b     *Broker
	clock *fakeClock
	log   string
}

func newRig(t testing.TB, cfg Config) *rig {
	t.Helper()
	clock := newFakeClock()
	l, path := openAudit(t, clock.Now)
	cfg.Recorder, cfg.Clock = l, clock
	if cfg.NewID == nil {
		cfg.NewID = seqIDs()
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatalf("new broker: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return &rig{b: b, clock: clock, log: path}
}

// cmdAsk is an execute_command request running one program on paths.
func cmdAsk(session, rule, seed string, program string, paths ...string) Ask {
	payload, _ := json.Marshal(map[string]string{"command": program + " " + seed})
	return Ask{Session: session, ActionType: "execute_command", ActionHash: hashOf(seed), Payload: payload,
		Reason: "writes outside the workspace", Rule: rule, Stage: "heuristic",
		Scope: Scope{Programs: []string{program}, Paths: paths}}
}

// result is what a Request returned.
type result struct {
	ans Answer
	err error
}

// start runs Request in a goroutine.
func start(b *Broker, ctx context.Context, a Ask) <-chan result {
	ch := make(chan result, 1)
	go func() {
		ans, err := b.Request(ctx, a)
		ch <- result{ans, err}
	}()
	return ch
}

// waitAsk waits for a channel to be shown a request.
func waitAsk(t testing.TB, s *Script) Ask {
	t.Helper()
	select {
	case a := <-s.Sent():
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("script %s was never shown a request", s.Name())
	}
	return Ask{}
}

// waitResult waits for a Request to return.
func waitResult(t testing.TB, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("Request did not return")
	}
	return result{}
}

// failRecorder is a Recorder that refuses everything.
type failRecorder struct{}

func (failRecorder) Append(context.Context, audit.Event) (audit.Entry, error) {
	return audit.Entry{}, errors.New("disk full")
}
