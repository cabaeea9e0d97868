package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Stream sends req and returns the answer as events. Failures before the
// first event are retried like Complete's; once an event has been read
// from the wire the stream is the caller's and is never retried. The
// model's timeout bounds the wait for each event.
func (c *client) Stream(ctx context.Context, req Request) (Stream, error) {
	if err := c.prepare(&req); err != nil {
		return nil, err
	}
	start := c.opts.Clock.Now()
	for attempt := 1; ; attempt++ {
		s, e := c.openStream(ctx, &req)
		if e == nil {
			s.attempts = attempt
			return s, nil
		}
		e.Attempts = attempt
		if err := c.pause(ctx, e, attempt, start); err != nil {
			return nil, err
		}
	}
}

// openStream opens one attempt and reads its first event, so that a
// failure to start is still retryable.
func (c *client) openStream(ctx context.Context, req *Request) (*stream, *Error) {
	obs := &observer{}
	actx, cancel := context.WithCancel(withObserver(ctx, obs))
	s := &stream{c: c, ctx: ctx, obs: obs, cancel: cancel, idle: newIdleTimer(c.timeout, cancel)}
	src, err := c.b.stream(actx, req)
	if err == nil {
		s.src = src
		var ev Event
		if ev, err = src.next(); err == nil {
			s.first, s.hasFirst = ev, true
			return s, nil
		}
	}
	e := c.classify(ctx, s.idle.fired.Load(), obs, err)
	s.closeLocked()
	return nil, e
}

// stream is the Stream of one successful attempt.
type stream struct {
	c        *client
	ctx      context.Context
	obs      *observer
	src      eventSource
	cancel   context.CancelFunc
	idle     *idleTimer
	attempts int
	closing  atomic.Bool

	mu       sync.Mutex // serialises Next and Close
	first    Event
	hasFirst bool
	done     bool
	err      error
	closed   bool
	closeErr error
}

var _ Stream = (*stream)(nil)

// Next returns the next event, io.EOF after EventDone.
func (s *stream) Next() (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.err != nil:
		return Event{}, s.err
	case s.hasFirst:
		s.hasFirst = false
		return s.deliver(s.first), nil
	case s.done:
		return Event{}, io.EOF
	}
	s.idle.reset()
	ev, err := s.src.next()
	if err != nil {
		s.err = s.broken(err)
		s.closeLocked()
		return Event{}, s.err
	}
	return s.deliver(ev), nil
}

func (s *stream) deliver(ev Event) Event {
	if ev.Kind == EventDone {
		ev.Attempts = s.attempts
		s.done = true
		s.idle.stop()
	}
	return ev
}

// broken classifies a failure after the stream started.
func (s *stream) broken(err error) *Error {
	if s.closing.Load() {
		return &Error{Kind: KindCanceled, Model: s.c.ref.Name, Provider: s.c.ref.Provider,
			Attempts: s.attempts, Detail: "stream closed", err: context.Canceled}
	}
	e := s.c.classify(s.ctx, s.idle.fired.Load(), s.obs, err)
	e.Attempts = s.attempts
	if e.Kind == KindTransport {
		e.Kind = KindStreamBroken
		if errors.Is(err, errIncomplete) {
			e.Detail = "the stream ended before its final event"
		}
	}
	if e.Kind == KindTimeout {
		e.Detail = fmt.Sprintf("no event within %s", s.c.timeout)
	}
	return e
}

// Close ends the stream and releases its connection. A Next blocked in
// another goroutine returns (canceled) first.
func (s *stream) Close() error {
	s.closing.Store(true)
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !s.done {
		s.err = &Error{Kind: KindCanceled, Model: s.c.ref.Name, Provider: s.c.ref.Provider,
			Attempts: s.attempts, Detail: "stream closed", err: context.Canceled}
	}
	s.closeLocked()
	return s.closeErr
}

// closeLocked releases the attempt once; s.mu is held (or s is not
// shared yet).
func (s *stream) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	s.idle.stop()
	if s.src != nil {
		s.closeErr = s.src.close()
	}
	s.cancel()
}

// idleTimer cancels an attempt when no event arrives in time.
type idleTimer struct {
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
}

func newIdleTimer(d time.Duration, cancel context.CancelFunc) *idleTimer {
	it := &idleTimer{d: d}
	it.t = time.AfterFunc(d, func() {
		it.fired.Store(true)
		cancel()
	})
	return it
}

func (it *idleTimer) reset() { it.t.Reset(it.d) }
func (it *idleTimer) stop()  { it.t.Stop() }
