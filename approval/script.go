package approval

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Step is what a Script channel does with one request, in order.
type Step struct {
	// Fail makes Send fail with this error (the channel is unreachable).
	Fail error
	// Wait leaves the request unanswered (answer later with Answer).
	Wait bool
	// Response is answered at once otherwise.
	Response Response
}

// Script is a channel that answers from a script: for tests and for
// non-interactive runs. Requests beyond the script wait. It records what
// it was shown and told.
type Script struct {
	name string
	sent chan Ask

	mu       sync.Mutex
	steps    []Step
	asks     []Ask
	replies  map[string]Reply
	resolved []Resolution
	results  []error // what each reply returned
}

var _ Channel = (*Script)(nil)

// NewScript returns a scripted channel.
func NewScript(name string, steps ...Step) *Script {
	return &Script{name: name, steps: steps, replies: map[string]Reply{}, sent: make(chan Ask, 64)}
}

// Name implements Channel.
func (s *Script) Name() string { return s.name }

// Send implements Channel: it records the request, then fails, waits or
// answers as the next step says.
func (s *Script) Send(_ context.Context, ask Ask, reply Reply) error {
	s.mu.Lock()
	var st Step
	if len(s.steps) > 0 {
		st, s.steps = s.steps[0], s.steps[1:]
	} else {
		st.Wait = true
	}
	if st.Fail == nil {
		s.asks = append(s.asks, ask)
		s.replies[ask.ID] = reply
	}
	s.mu.Unlock()
	if st.Fail != nil {
		return st.Fail
	}
	select {
	case s.sent <- ask:
	default:
	}
	if !st.Wait {
		err := reply(st.Response)
		s.mu.Lock()
		s.results = append(s.results, err)
		s.mu.Unlock()
	}
	return nil
}

// Resolved implements Channel.
func (s *Script) Resolved(_ context.Context, _ Ask, res Resolution) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resolved = append(s.resolved, res)
}

// Answer answers a request the channel was shown.
func (s *Script) Answer(id string, r Response) error {
	s.mu.Lock()
	reply := s.replies[id]
	s.mu.Unlock()
	if reply == nil {
		return fmt.Errorf("script %s: answer %s: %w", s.name, id, ErrUnknownAsk)
	}
	err := reply(r)
	s.mu.Lock()
	s.results = append(s.results, err)
	s.mu.Unlock()
	return err
}

// Sent delivers each request as it is shown (buffered; extra ones beyond
// the buffer are only in Asks).
func (s *Script) Sent() <-chan Ask { return s.sent }

// Asks returns the requests shown so far.
func (s *Script) Asks() []Ask {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ask(nil), s.asks...)
}

// Resolutions returns the resolutions the channel was told.
func (s *Script) Resolutions() []Resolution {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Resolution(nil), s.resolved...)
}

// Results returns what each of the channel's replies returned.
func (s *Script) Results() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.results...)
}

// ErrScriptDown is a ready-made Step.Fail.
var ErrScriptDown = errors.New("scripted channel unreachable")
