package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/parallax/parallax/dlp"
)

// Defaults of a Config.
const (
	DefaultTimeout     = 300 * time.Second
	DefaultHourlyLimit = 10
	DefaultGrantTTL    = time.Hour
	// RateWindow is the rolling window of the request cap.
	RateWindow = time.Hour
)

// Bounds of the broker's own memory and of channel notifications.
const (
	maxRecent     = 1024             // resolved request ids remembered to tell "late" from "unknown"
	notifyTimeout = 30 * time.Second // a channel's Resolved call
)

// Config configures a Broker.
type Config struct {
	// Recorder is the audit chain; required. A request whose events
	// cannot be recorded is denied.
	Recorder Recorder
	// Channels are where requests are shown; more can be attached later.
	Channels []Channel
	// DLP redacts everything shown; nil means dlp.New() with its defaults.
	DLP *dlp.Detector
	// State holds the request cap and the grants; nil means a MemoryState.
	State State
	// Clock runs timeouts and stamps requests; nil means SystemClock().
	Clock Clock
	// NewID returns a fresh, unguessable id of [A-Za-z0-9._:/@+=-] (request
	// ids double as webhook references); nil means 16 random bytes in hex.
	NewID func() string
	// Timeout is how long a request waits for an answer before it is
	// denied; 0 means DefaultTimeout.
	Timeout time.Duration
	// HourlyLimit caps the requests put to humans in any rolling hour,
	// over all sessions of the workspace; 0 means DefaultHourlyLimit.
	HourlyLimit int
	// GrantTTL is how long a grant lasts unless its session ends first;
	// 0 means DefaultGrantTTL.
	GrantTTL time.Duration
}

// Broker sends requests to every channel, takes the first answer and
// records every step. It is safe for concurrent use.
type Broker struct {
	rec      Recorder
	dlp      *dlp.Detector
	state    State
	clock    Clock
	newID    func() string
	timeout  time.Duration
	grantTTL time.Duration
	limit    int

	mu          sync.Mutex
	channels    []Channel
	pending     map[string]*pending // by request id
	byKey       map[string]*pending // by session, rule and action hash: duplicates join
	recent      map[string]*pending // resolved requests, to audit late answers
	recentOrder []string
	closed      bool
	active      sync.WaitGroup // Request calls in flight
	bg          sync.WaitGroup // sends and notifications
}

// New returns a broker. It fails without a Recorder, with a negative
// limit or duration, or with channels whose names are not identifiers
// ([A-Za-z0-9._:/@+=-]) or not unique.
func New(cfg Config) (*Broker, error) {
	if cfg.Recorder == nil {
		return nil, errors.New("new approval broker: a Recorder (the audit chain) is required")
	}
	if cfg.Timeout < 0 || cfg.GrantTTL < 0 || cfg.HourlyLimit < 0 {
		return nil, errors.New("new approval broker: timeout, grant TTL and hourly limit must not be negative")
	}
	b := &Broker{rec: cfg.Recorder, dlp: cfg.DLP, state: cfg.State, clock: cfg.Clock, newID: cfg.NewID,
		timeout: orDuration(cfg.Timeout, DefaultTimeout), grantTTL: orDuration(cfg.GrantTTL, DefaultGrantTTL),
		limit: cfg.HourlyLimit, pending: map[string]*pending{}, byKey: map[string]*pending{}, recent: map[string]*pending{}}
	if b.limit == 0 {
		b.limit = DefaultHourlyLimit
	}
	if b.dlp == nil {
		d, err := dlp.New()
		if err != nil {
			return nil, fmt.Errorf("new approval broker: load dlp: %w", err)
		}
		b.dlp = d
	}
	if b.state == nil {
		b.state = NewMemoryState()
	}
	if b.clock == nil {
		b.clock = SystemClock()
	}
	if b.newID == nil {
		b.newID = randomID
	}
	for _, ch := range cfg.Channels {
		if err := b.addChannel(ch); err != nil {
			return nil, fmt.Errorf("new approval broker: %w", err)
		}
	}
	return b, nil
}

func orDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// randomID is 16 bytes from crypto/rand in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// addChannel checks and adds a channel; b.mu must not be held.
func (b *Broker) addChannel(ch Channel) error {
	if ch == nil {
		return errors.New("add approval channel: nil channel")
	}
	name := ch.Name()
	if !isIdent(name) || name == "" {
		return fmt.Errorf("add approval channel %q: the name must be 1-128 of [A-Za-z0-9._:/@+=-]", name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	for _, c := range b.channels {
		if c.Name() == name {
			return fmt.Errorf("add approval channel %q: a channel of that name is attached", name)
		}
	}
	b.channels = append(b.channels, ch)
	return nil
}

// Attach connects a channel (a web UI session, a TUI) while the broker
// runs. Requests pending at that moment are sent to it too. The returned
// function detaches it; requests it already showed may still be answered
// on it.
func (b *Broker) Attach(ch Channel) (detach func(), err error) {
	if err := b.addChannel(ch); err != nil {
		return nil, err
	}
	b.mu.Lock()
	var open []*pending
	for _, p := range b.pending {
		if p.started {
			open = append(open, p)
		}
	}
	b.mu.Unlock()
	for _, p := range open {
		b.fanOut(p, []Channel{ch})
	}
	return func() { b.detach(ch) }, nil
}

func (b *Broker) detach(ch Channel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, c := range b.channels {
		if c == ch {
			b.channels = append(b.channels[:i:i], b.channels[i+1:]...)
			return
		}
	}
}

// EndSession drops the session's grants (call it when the session ends)
// and returns how many there were.
func (b *Broker) EndSession(ctx context.Context, session string) (int, error) {
	n, err := b.state.EndSession(ctx, session)
	if err != nil {
		return 0, fmt.Errorf("end approval grants of session %q: %w", session, err)
	}
	return n, nil
}

// Close denies every pending request (approval_cancelled), waits for the
// calls in flight and the channel notifications, and refuses new
// requests.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	open := make([]*pending, 0, len(b.pending))
	for _, p := range b.pending {
		open = append(open, p)
	}
	b.mu.Unlock()
	for _, p := range open {
		b.resolve(p, outcome{code: CodeCancelled, err: ErrClosed})
	}
	b.active.Wait()
	b.bg.Wait()
	return nil
}

// enter counts a Request in flight; false once the broker is closed.
func (b *Broker) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.active.Add(1)
	return true
}

// Request puts an escalated action to a human and returns the answer. It
// blocks until the first channel answers, the timeout denies, or ctx
// ends (a deny). A grant of the session may allow it without asking; past
// the hourly cap it is denied without asking. Every outcome of a
// well-formed request is recorded before Request returns. A non-nil error
// always comes with a Deny.
func (b *Broker) Request(ctx context.Context, in Ask) (Answer, error) {
	now := b.clock.Now()
	if !b.enter() {
		return refused(now, CodeCancelled, "the approval broker is closed; denied"), ErrClosed
	}
	defer b.active.Done()
	if err := checkAsk(&in); err != nil {
		return refused(now, CodeError, "the approval request is malformed; denied"),
			fmt.Errorf("request approval: %w", err)
	}
	g, err := b.findGrant(ctx, &in, now)
	if err != nil {
		return refused(now, CodeError, "approval grants could not be read; denied"),
			fmt.Errorf("request approval for %s: %w", in.ActionType, err)
	}
	if g != nil {
		return b.granted(ctx, &in, g, now)
	}
	p, joined, err := b.register(&in, now)
	if err != nil {
		return refused(now, CodeError, "the approval request could not be registered; denied"),
			fmt.Errorf("request approval for %s: %w", in.ActionType, err)
	}
	if !joined {
		b.admit(ctx, p, now)
	}
	return b.await(ctx, p, !joined)
}

// refused is a Deny decided before any request existed.
func refused(now time.Time, code, reason string) Answer {
	return Answer{Decision: Deny, Code: code, Reason: reason, At: now}
}
