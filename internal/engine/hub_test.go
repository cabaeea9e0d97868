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
	all, one := h.subscribe("", 0, true), h.subscribe("s2", 0, true)
	h.publish(textEvent("s1", "a"))
	h.publish(textEvent("s2", "b"))
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"all sessions", drain(all.ch), "s1:a s2:b"},
		{"one session", drain(one.ch), "s2:b"},
		{"replay after 1", drain(h.subscribe("", 1, true).ch), "s2:b"},
		{"no replay", drain(h.subscribe("", 0, true).ch), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := join(tt.got); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	slow := h.subscribe("", 0, true)
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

// A subscriber that is not local never gets an off-the-record session's
// events, nor those of a session the hub was not told about, live or
// replayed, whether it asked for every session or for that one.
func TestHubKeepsOffTheRecordFromRemoteSubscribers(t *testing.T) {
	h := newHub(func() time.Time { return time.Unix(100, 0) })
	h.mark("pub", false)
	h.mark("otr", true)
	subs := map[string]*subscriber{
		"remote all": h.subscribe("", 0, false), "remote otr": h.subscribe("otr", 0, false),
		"remote unknown": h.subscribe("ghost", 0, false), "local all": h.subscribe("", 0, true),
	}
	for _, s := range []string{"otr", "ghost", "pub"} {
		h.publish(textEvent(s, "x"))
	}
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"remote all", drain(subs["remote all"].ch), "pub:x"},
		{"remote otr", drain(subs["remote otr"].ch), ""},
		{"remote unknown", drain(subs["remote unknown"].ch), ""},
		{"local all", drain(subs["local all"].ch), "otr:x ghost:x pub:x"},
		{"remote replay", drain(h.subscribe("", 1, false).ch), "pub:x"},
		{"remote replay of otr", drain(h.subscribe("otr", 1, false).ch), ""},
		{"local replay", drain(h.subscribe("", 1, true).ch), "ghost:x pub:x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := join(tt.got); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
