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
// ends) rather than slowing the engine down.
type hub struct {
	now func() time.Time

	mu     sync.Mutex
	seq    uint64
	recent []*pb.Event
	subs   map[*subscriber]struct{}
	closed bool
}

const (
	hubKeep   = 1024
	hubBuffer = 4096
)

type subscriber struct {
	session string
	ch      chan *pb.Event
}

func newHub(now func() time.Time) *hub {
	return &hub{now: now, subs: map[*subscriber]struct{}{}}
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
		if s.session != "" && s.session != ev.GetSessionId() {
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
// replaying the kept ones after seq after (0: none).
func (h *hub) subscribe(session string, after uint64) *subscriber {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &subscriber{session: session, ch: make(chan *pb.Event, hubBuffer)}
	if h.closed {
		close(s.ch)
		return s
	}
	if after > 0 {
		for _, ev := range h.recent {
			if ev.GetSeq() > after && (session == "" || ev.GetSessionId() == session) {
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
