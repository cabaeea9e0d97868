package engine

import (
	"sync"
	"time"

	"github.com/parallax/parallax/internal/wire"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// hub numbers the runtime's events and hands them to subscribers. It
// keeps the last hubKeep events for subscribers that ask to replay; a
// subscriber that falls hubBuffer events behind is dropped (its stream
// ends) rather than slowing the engine down. Events of an off-the-record
// session, or of a session the hub was not told about, go to local
// subscribers only.
type hub struct {
	now func() time.Time

	mu       sync.Mutex
	seq      uint64
	recent   []*pb.Event
	subs     map[*subscriber]struct{}
	sessions map[string]bool // known sessions: true when off the record
	closed   bool
}

const (
	hubKeep   = 1024
	hubBuffer = 4096
)

type subscriber struct {
	session string
	local   bool // may see off-the-record sessions
	ch      chan *pb.Event
}

func newHub(now func() time.Time) *hub {
	return &hub{now: now, subs: map[*subscriber]struct{}{}, sessions: map[string]bool{}}
}

// mark tells the hub a session exists and whether it is off the record.
func (h *hub) mark(session string, otr bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[session] = otr
}

// wants reports whether s is to get ev: its session (or all), and, for a
// subscriber that is not local, only sessions known to be on the record.
// Called with h.mu held.
func (h *hub) wants(s *subscriber, ev *pb.Event) bool {
	if s.session != "" && s.session != ev.GetSessionId() {
		return false
	}
	if s.local {
		return true
	}
	otr, known := h.sessions[ev.GetSessionId()]
	return known && !otr
}

// publish numbers ev, keeps it and sends it to the subscribers that
// want it.
func (h *hub) publish(ev *pb.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.seq++
	ev.Seq = h.seq
	ev.TimeUnixMs = h.now().UnixMilli()
	ev = wire.ValidText(ev) // a client's stream must not break on a stray byte
	h.recent = append(h.recent, ev)
	if len(h.recent) > hubKeep {
		h.recent = h.recent[len(h.recent)-hubKeep:]
	}
	for s := range h.subs {
		if !h.wants(s, ev) {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// subscribe returns a subscriber to session's events ("" for all),
// replaying the kept ones after seq after (0: none); local subscribers
// also get off-the-record sessions.
func (h *hub) subscribe(session string, after uint64, local bool) *subscriber {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &subscriber{session: session, local: local, ch: make(chan *pb.Event, hubBuffer)}
	if h.closed {
		close(s.ch)
		return s
	}
	if after > 0 {
		for _, ev := range h.recent {
			if ev.GetSeq() > after && h.wants(s, ev) {
				s.ch <- ev
			}
		}
	}
	h.subs[s] = struct{}{}
	return s
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
}

// close ends every subscription.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}
