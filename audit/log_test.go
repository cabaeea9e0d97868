package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/internal/flock"
	"github.com/parallax/parallax/verdict"
)

// stepClock returns t0, t0+1ms, t0+2ms, … (safe for concurrent use).
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *stepClock {
	return &stepClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(time.Millisecond)
	return t
}

// tempLog returns the path of a log in a fresh directory.
func tempLog(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), ".parallax", "audit.jsonl")
}

func openT(t testing.TB, path string) *Log {
	t.Helper()
	l, err := Open(path, Options{Clock: newClock().Now})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// sampleEvent is the i-th event of a test log.
func sampleEvent(i int) Event {
	v := verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageGuard, Rule: "guard_restricted",
		Reason: fmt.Sprintf("reads ~/.ssh/id_rsa (entry %d)", i),
		Hash:   "sha256:" + strings.Repeat(fmt.Sprintf("%x", i%16), 64)}
	return FromVerdict(ActionEvaluated, fmt.Sprintf("s%d", i%3), "read_file", v)
}

// writeLog creates a log with n entries and returns its path.
func writeLog(t testing.TB, n int) string {
	t.Helper()
	path := tempLog(t)
	l, err := Open(path, Options{Clock: newClock().Now})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	for i := 1; i <= n; i++ {
		if _, err := l.Append(context.Background(), sampleEvent(i)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return path
}

func TestAppendChainsEntries(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	ctx := context.Background()
	first, err := l.Append(ctx, Event{Type: SessionStarted, Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := l.Append(ctx, sampleEvent(7))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"first seq", first.Seq, uint64(1)},
		{"first prev", first.Prev, Genesis},
		{"first time", first.Time, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
		{"second seq", second.Seq, uint64(2)},
		{"second prev", second.Prev, first.Hash},
		{"second decision", second.Decision, "BLOCK"},
		{"second stage", second.Stage, "guard"},
		{"second rule", second.Rule, "guard_restricted"},
		{"second action", second.ActionType, "read_file"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	// Durable and readable by another reader right away, before Close.
	rep, err := Verify(path, VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if rep.Last != (Anchor{2, second.Hash}) || rep.Head != rep.Last || rep.HeadLag != 0 {
		t.Errorf("got report %+v, want last and head at seq 2 %s", rep, second.Hash)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", st.Mode().Perm())
	}
}

func TestReopenContinuesChain(t *testing.T) {
	path := writeLog(t, 3)
	l := openT(t, path)
	e, err := l.Append(context.Background(), Event{Type: SessionEnded, Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 4 {
		t.Errorf("got seq %d, want 4", e.Seq)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(path, VerifyOptions{}); err != nil {
		t.Errorf("verify: %v", err)
	}
}

func TestAppendRefusesBadEvents(t *testing.T) {
	l := openT(t, tempLog(t))
	long := strings.Repeat("x", maxIdent+1)
	for _, c := range []struct {
		name string
		ev   Event
	}{
		{"unknown type", Event{Type: "ActionTeleported"}},
		{"empty type", Event{}},
		{"bad decision", Event{Type: ActionEvaluated, Decision: "MAYBE"}},
		{"tier", Event{Type: ActionEvaluated, Tier: 4}},
		{"action hash", Event{Type: ActionEvaluated, ActionHash: "sha256:XYZ"}},
		{"rule charset", Event{Type: ActionEvaluated, Rule: "rule with spaces"}},
		{"long rule", Event{Type: ActionEvaluated, Rule: long}},
		{"session control", Event{Type: SessionStarted, Session: "s1\x1b[2J"}},
		{"label", Event{Type: IFCClassified, Detail: Detail{Labels: []string{"ok", "not ok"}}}},
		{"empty label", Event{Type: IFCClassified, Detail: Detail{Labels: []string{""}}}},
		{"ref", Event{Type: ChronicleSnapshot, Detail: Detail{Ref: "a\nb"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := l.Append(context.Background(), c.ev); err == nil {
				t.Errorf("got nil error, want a refusal")
			}
		})
	}
	if st := l.Stats(); st.Entries != 0 {
		t.Errorf("got %d entries written, want 0", st.Entries)
	}
}

func TestAppendRedactsAndBounds(t *testing.T) {
	path := tempLog(t)
	secret := "AKIAIOSFODNN7EXAMPLE"
	red := RedactFunc(func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:aws]") })
	l, err := Open(path, Options{Clock: newClock().Now, Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	ev := Event{Type: ActionBlocked, Reason: "key " + secret + " in body",
		Detail: Detail{Message: strings.Repeat("é", maxMessage) + secret, Path: "/tmp/" + secret}}
	e, err := l.Append(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), Event{Type: ShieldError, Reason: "bad utf8 \xff\xfe"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Errorf("the secret reached the file")
	}
	if e.Reason != "key [REDACTED:aws] in body" {
		t.Errorf("got reason %q, want the redacted one", e.Reason)
	}
	if len(e.Detail.Message) > maxMessage || !strings.HasSuffix(e.Detail.Message, "…") {
		t.Errorf("got message of %d bytes, want at most %d ending in …", len(e.Detail.Message), maxMessage)
	}
	if _, err := Verify(path, VerifyOptions{}); err != nil {
		t.Errorf("verify: %v", err)
	}
}

func TestRedactorPanicFailsAppend(t *testing.T) {
	l, err := Open(tempLog(t), Options{Redactor: RedactFunc(func(string) string { panic("boom") })})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(context.Background(), Event{Type: ActionBlocked, Reason: "x"}); err == nil {
		t.Errorf("got nil error, want the panic turned into a refusal")
	}
}

func TestCloseFlushesAndRefuses(t *testing.T) {
	path := tempLog(t)
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := l.Append(context.Background(), sampleEvent(i)); err != nil {
				t.Errorf("append: %v", err)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := l.Append(context.Background(), sampleEvent(1)); !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
	rep, err := Verify(path, VerifyOptions{})
	if err != nil || rep.Entries != 20 {
		t.Errorf("got %d entries, %v; want 20, nil", rep.Entries, err)
	}
}

func TestConcurrentAppends(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	const writers, each = 8, 50
	seqs := make(chan uint64, writers*each)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				e, err := l.Append(context.Background(), sampleEvent(w*each+i))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				seqs <- e.Seq
			}
		})
	}
	wg.Wait()
	close(seqs)
	seen := map[uint64]bool{}
	for s := range seqs {
		if seen[s] {
			t.Errorf("seq %d returned twice", s)
		}
		seen[s] = true
	}
	rep, err := Verify(path, VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if rep.Entries != writers*each || len(seen) != writers*each {
		t.Errorf("got %d entries and %d seqs, want %d", rep.Entries, len(seen), writers*each)
	}
	st := l.Stats()
	t.Logf("%d entries in %d batches", st.Entries, st.Batches)
}

// holdLock takes the log's exclusive lock from another descriptor, as
// another process would; release gives it back.
func holdLock(t *testing.T, path string) (release func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock.Lock(f, true); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { _ = flock.Unlock(f); _ = f.Close() }) }
	t.Cleanup(release)
	return release
}

// waitQueue waits until the committer has taken `taken` requests and
// `queued` more wait in the queue.
func waitQueue(t *testing.T, l *Log, taken uint64, queued int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		l.mu.Lock()
		got := len(l.queue)
		l.mu.Unlock()
		if got == queued && l.dequeued.Load() == taken {
			return
		}
	}
	t.Fatalf("never saw %d requests taken and %d queued", taken, queued)
}

func TestGroupCommitOneFsyncPerBatch(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	release := holdLock(t, path)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = l.Append(context.Background(), sampleEvent(0)) })
	waitQueue(t, l, 1, 0) // the committer took the first and waits for the lock
	for i := 1; i < 8; i++ {
		wg.Go(func() { _, _ = l.Append(context.Background(), sampleEvent(i)) })
	}
	waitQueue(t, l, 1, 7)
	release()
	wg.Wait()
	if got, want := l.Stats(), (Stats{Batches: 2, Entries: 8}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if rep, err := Verify(path, VerifyOptions{}); err != nil || rep.Entries != 8 {
		t.Errorf("got %d entries, %v; want 8, nil", rep.Entries, err)
	}
}

func TestAppendCancelledWhileQueued(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	release := holdLock(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := l.Append(ctx, Event{Type: ActionProposed, Session: "gone"})
		errc <- err
	}()
	waitQueue(t, l, 1, 0) // taken into a batch, waiting for the lock
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	release()
	e, err := l.Append(context.Background(), Event{Type: ActionProposed, Session: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 1 {
		t.Errorf("got seq %d, want 1: the cancelled entry must not be written", e.Seq)
	}
	if _, err := l.Append(ctx, Event{Type: ActionProposed}); !errors.Is(err, context.Canceled) {
		t.Errorf("append with a dead context: got %v, want context.Canceled", err)
	}
}

func TestAppendCancelledAfterWriteIsCommitted(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	written := make(chan struct{})
	proceed := make(chan struct{})
	l.beforeSync = func() { close(written); <-proceed }
	type res struct {
		e   Entry
		err error
	}
	out := make(chan res, 1)
	go func() {
		e, err := l.Append(ctx, Event{Type: ActionProposed, Session: "s1"})
		out <- res{e, err}
	}()
	<-written
	cancel()
	close(proceed)
	r := <-out
	if r.err != nil || r.e.Seq != 1 {
		t.Errorf("got seq %d, %v; want seq 1 committed despite the cancel", r.e.Seq, r.err)
	}
}

func TestOpenRefusesUnsupportedState(t *testing.T) {
	path := writeLog(t, 2)
	if err := os.Remove(HeadPath(path)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	ce, ok := AsChainError(err)
	if !ok || ce.Code != CodeHeadMissing {
		t.Errorf("got %v, want head_missing", err)
	}
}

func TestBadClockWritesNothing(t *testing.T) {
	path := tempLog(t)
	l, err := Open(path, Options{Clock: func() time.Time { return time.Time{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(context.Background(), Event{Type: SessionStarted}); err == nil {
		t.Errorf("got nil error, want the year-1 clock refused")
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Errorf("got %v, %v; want an empty log", st.Size(), err)
	}
}
