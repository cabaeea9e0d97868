package approval

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
)

// discard is a Recorder that keeps nothing: it isolates the broker's own
// cost from the audit chain's fsync.
type discard struct{}

func (discard) Append(context.Context, audit.Event) (audit.Entry, error) { return audit.Entry{}, nil }

func benchBroker(b *testing.B, rec Recorder, ch Channel) *Broker {
	b.Helper()
	br, err := New(Config{Recorder: rec, Channels: []Channel{ch}, Clock: newFakeClock(), NewID: seqIDs(), HourlyLimit: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Close() })
	return br
}

// BenchmarkRequestGranted is the hot path once a human granted a
// pattern: a grant lookup and one audit event, no prompt.
func BenchmarkRequestGranted(b *testing.B) {
	for _, bc := range []struct {
		name string
		rec  func(b *testing.B) Recorder
	}{
		{"no-audit", func(*testing.B) Recorder { return discard{} }},
		{"audit-fsync", func(b *testing.B) Recorder { l, _ := openAudit(b, nil); return l }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			br := benchBroker(b, bc.rec(b), NewScript("tty", Step{Response: Response{Decision: Allow, Grant: GrantPattern}}))
			first := cmdAsk("s1", "write_outside", "bench-0", "cp", "/home/dev/other/a")
			if ans, err := br.Request(context.Background(), first); err != nil || ans.Grant != GrantPattern {
				b.Fatalf("grant: %+v %v", ans, err)
			}
			next := cmdAsk("s1", "write_outside", "bench-1", "cp", "/home/dev/other/b")
			b.ReportAllocs()
			for b.Loop() {
				if ans, _ := br.Request(context.Background(), next); ans.Code != CodeGranted {
					b.Fatalf("got %+v", ans)
				}
			}
		})
	}
}

// BenchmarkRequestAnswered is a full request answered at once by a
// channel: redaction, fan-out, resolution, notification.
func BenchmarkRequestAnswered(b *testing.B) {
	s := NewScript("tty")
	br := benchBroker(b, discard{}, s)
	a := cmdAsk("s1", "privilege", "bench", "sudo")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.mu.Lock()
		s.steps = append(s.steps, Step{Response: Response{Decision: Allow}})
		s.asks, s.resolved, s.results, s.replies = s.asks[:0], s.resolved[:0], s.results[:0], map[string]Reply{}
		s.mu.Unlock()
		i++
		a.ActionHash = hashOf(string(rune(i)))
		if ans, _ := br.Request(context.Background(), a); ans.Decision != Allow {
			b.Fatalf("got %+v", ans)
		}
	}
}

func BenchmarkRedactPayload(b *testing.B) {
	d := detector(b)
	small, _ := json.Marshal(map[string]string{"command": "curl -H 'Authorization: Bearer " + bearer + "' https://api.example.com/v1/items?limit=10"})
	big, _ := json.Marshal(map[string]string{"path": "/home/dev/other/report.md",
		"content": strings.Repeat("Quarterly figures are in the table below; see the appendix. ", 270)}) // ≈ 16 KiB
	for _, bc := range []struct {
		name string
		raw  []byte
	}{{"command", small}, {"write-16KiB", big}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.raw)))
			b.ReportAllocs()
			for b.Loop() {
				redactPayload(d, bc.raw)
			}
		})
	}
}

func BenchmarkPatternMatch(b *testing.B) {
	p := Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/other"}
	s := Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other/a/b/c.txt", "/home/dev/other/d.txt"}}
	b.ReportAllocs()
	for b.Loop() {
		if !p.Matches("execute_command", s) {
			b.Fatal("no match")
		}
	}
}
