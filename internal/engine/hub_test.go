package engine

import (
	"testing"
	"time"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

func textEvent(session, text string) *pb.Event {
	return &pb.Event{SessionId: session, Kind: &pb.Event_TextDelta{TextDelta: &pb.TextDelta{Text: text}}}
}

func drain(ch <-chan *pb.Event) []string {
	var out []string
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return append(out, "closed")
			}
			out = append(out, ev.GetSessionId()+":"+ev.GetTextDelta().GetText())
		default:
			return out
		}
	}
}

// Events are numbered, filtered by session, replayed after a sequence
// number, and a subscriber that falls too far behind is dropped instead
// of slowing the engine.
func TestHub(t *testing.T) {
	h := newHub(func() time.Time { return time.Unix(100, 0) })
	all, one := h.subscribe("", 0), h.subscribe("s2", 0)
	h.publish(textEvent("s1", "a"))
	h.publish(textEvent("s2", "b"))
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"all sessions", drain(all.ch), "s1:a s2:b"},
		{"one session", drain(one.ch), "s2:b"},
		{"replay after 1", drain(h.subscribe("", 1).ch), "s2:b"},
		{"no replay", drain(h.subscribe("", 0).ch), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := join(tt.got); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	slow := h.subscribe("", 0)
	for range hubBuffer + 1 {
		h.publish(textEvent("s1", "x"))
	}
	if got := drain(slow.ch); got[len(got)-1] != "closed" || len(got) != hubBuffer+1 {
		t.Errorf("slow subscriber: got %d events, last %q; want %d then closed", len(got), got[len(got)-1], hubBuffer)
	}
	h.close()
	if got := drain(all.ch); got[len(got)-1] != "closed" {
		t.Errorf("after close: got %v, want the stream closed", got)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
