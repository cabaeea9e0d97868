package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// screen is a terminal's output, safe to read while it is written.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the screen shows want n times.
func (s *screen) waitFor(t testing.TB, want string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if strings.Count(s.String(), want) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %q %d times; it shows:\n%s", want, n, s.String())
		}
	}
}

// tty is a Terminal on a pipe: type writes lines to it.
type tty struct {
	*Terminal
	in  *io.PipeWriter
	out *screen
}

func newTTY(t testing.TB) *tty {
	t.Helper()
	r, w := io.Pipe()
	out := &screen{}
	term := NewTerminal("terminal", r, out)
	t.Cleanup(func() {
		_ = w.Close()
		<-term.Done()
	})
	return &tty{term, w, out}
}

func (y *tty) typeLine(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(y.in, line+"\n"); err != nil {
		t.Fatalf("type %q: %v", line, err)
	}
}

func TestTerminalAnswers(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  Decision
		grant GrantKind
	}{
		{"y", []string{"y"}, Allow, GrantNone},
		{"YES", []string{" YES "}, Allow, GrantNone},
		{"n", []string{"n"}, Deny, GrantNone},
		{"empty line denies", []string{""}, Deny, GrantNone},
		{"a", []string{"a"}, Allow, GrantExact},
		{"always", []string{"always"}, Allow, GrantExact},
		{"p", []string{"p"}, Allow, GrantPattern},
		{"junk asks again", []string{"maybe", "y"}, Allow, GrantNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			y := newTTY(t)
			r := newRig(t, Config{Channels: []Channel{y.Terminal}})
			res := start(r.b, context.Background(), cmdAsk("s1", "write_outside", "t", "cp", "/home/dev/other/a"))
			y.out.waitFor(t, "approve? [y/N/a/p] ", 1)
			for i, l := range tc.lines {
				y.typeLine(t, l)
				if i < len(tc.lines)-1 {
					y.out.waitFor(t, "approve? [y/N/a/p] ", i+2)
				}
			}
			got := waitResult(t, res)
			if got.err != nil || got.ans.Decision != tc.want || got.ans.Grant != tc.grant || got.ans.By != "terminal" {
				t.Fatalf("got %+v, %v; want %v with %v grant on terminal", got.ans, got.err, tc.want, tc.grant)
			}
			y.out.waitFor(t, "recorded", 1)
		})
	}
}

func TestTerminalShows(t *testing.T) {
	y := newTTY(t)
	r := newRig(t, Config{Channels: []Channel{y.Terminal}})
	a := cmdAsk("s1", "write_outside", "show", "cp", "/home/dev/other/a")
	a.Payload = json.RawMessage(`{"command":"cp x /home/dev/other/a"}`)
	res := start(r.b, context.Background(), a)
	y.out.waitFor(t, "approve?", 1)
	y.typeLine(t, "n")
	waitResult(t, res)
	got := y.out.String()
	for _, want := range []string{
		"--- approval request id-1 ---",
		"session  s1",
		"action   execute_command  " + a.ActionHash,
		"why      writes outside the workspace (rule write_outside, stage heuristic)",
		`payload  {"command":"cp x /home/dev/other/a"}`,
		"expires  in 5m0s (at 09:05:00 UTC)",
		"p = allow execute_command running cp under /home/dev/other for the session",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q; it shows:\n%s", want, got)
		}
	}
}

func TestTerminalOffersOnlyWhatFits(t *testing.T) {
	y := newTTY(t)
	r := newRig(t, Config{Channels: []Channel{y.Terminal}})
	a := cmdAsk("s1", "sudo", "opaque", "sudo")
	a.Scope.Opaque = true
	res := start(r.b, context.Background(), a)
	y.out.waitFor(t, "approve? [y/N/a] ", 1)
	y.typeLine(t, "p") // not offered: asked again
	y.out.waitFor(t, "approve? [y/N/a] ", 2)
	y.typeLine(t, "n")
	if got := waitResult(t, res); got.ans.Decision != Deny {
		t.Fatalf("got %+v, want deny", got.ans)
	}
}

func TestTerminalEscapes(t *testing.T) {
	y := newTTY(t)
	r := newRig(t, Config{Channels: []Channel{y.Terminal}})
	a := cmdAsk("s1", "write_outside", "esc", "cp", "/home/dev/other/a")
	// A payload that would clear the screen and print a fake approval,
	// and a reason that reverses the text after it.
	a.Payload = json.RawMessage(`{"command":"cp a b \u001b[2J\u001b[Happroved\u009b31m"}`)
	a.Reason = "harmless \u202egnp.exe\x07 line\u2028two"
	res := start(r.b, context.Background(), a)
	y.out.waitFor(t, "approve?", 1)
	y.typeLine(t, "n")
	waitResult(t, res)
	got := y.out.String()
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\x07", "\u2028"} {
		if strings.Contains(got, bad) {
			t.Errorf("screen carries the raw character %q", bad)
		}
	}
	for _, want := range []string{`\u001b[2J`, `\u009b31m`, `\u202egnp.exe\u0007 line\u2028two`} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks the escaped %q; it shows:\n%s", want, got)
		}
	}
}

func TestTerminalIgnoresTypeAhead(t *testing.T) {
	y := newTTY(t)
	r := newRig(t, Config{Channels: []Channel{y.Terminal}})
	y.typeLine(t, "y") // typed before any request exists
	y.out.waitFor(t, "input ignored", 1)
	res := start(r.b, context.Background(), cmdAsk("s1", "sudo", "ahead", "sudo"))
	y.out.waitFor(t, "approve?", 1)
	select {
	case got := <-res:
		t.Fatalf("typed-ahead input answered: %+v", got.ans)
	case <-time.After(50 * time.Millisecond):
	}
	y.typeLine(t, "n")
	if got := waitResult(t, res); got.ans.Decision != Deny {
		t.Fatalf("got %+v, want deny", got.ans)
	}
}

func TestTerminalQueueAndResolvedElsewhere(t *testing.T) {
	y := newTTY(t)
	web := NewScript("web", Step{Wait: true}, Step{Wait: true})
	r := newRig(t, Config{Channels: []Channel{y.Terminal, web}})
	first := start(r.b, context.Background(), cmdAsk("s1", "sudo", "q1", "sudo"))
	a1 := waitAsk(t, web)
	y.out.waitFor(t, "approve?", 1)
	second := start(r.b, context.Background(), cmdAsk("s1", "sudo", "q2", "sudo"))
	a2 := waitAsk(t, web)
	if strings.Contains(y.out.String(), a2.ID) {
		t.Fatal("the second request was shown while the first was on screen")
	}
	if err := web.Answer(a1.ID, Response{Decision: Allow, User: "alice"}); err != nil {
		t.Fatal(err)
	}
	if got := waitResult(t, first); got.ans.By != "web" {
		t.Fatalf("first: got %+v, want answered on web", got.ans)
	}
	y.out.waitFor(t, "request "+a1.ID+" ended on web: allow (approval_allowed)", 1)
	y.out.waitFor(t, "--- approval request "+a2.ID+" ---", 1)
	y.typeLine(t, "y")
	if got := waitResult(t, second); got.ans.By != "terminal" || got.ans.Decision != Allow {
		t.Fatalf("second: got %+v, want allow on terminal", got.ans)
	}
}

func TestTerminalClosedInput(t *testing.T) {
	r, w := io.Pipe()
	term := NewTerminal("terminal", r, io.Discard)
	_ = w.Close()
	<-term.Done()
	err := term.Send(context.Background(), Ask{ID: "x"}, func(Response) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "terminal input closed") {
		t.Fatalf("send on closed terminal: got %v", err)
	}
}

func TestTerminalLongLineRefused(t *testing.T) {
	y := newTTY(t)
	r := newRig(t, Config{Channels: []Channel{y.Terminal}})
	res := start(r.b, context.Background(), cmdAsk("s1", "sudo", "long", "sudo"))
	y.out.waitFor(t, "approve?", 1)
	y.typeLine(t, "y"+strings.Repeat(" ", 3*maxLine)) // "y" then spaces: still refused
	y.out.waitFor(t, "approve?", 2)
	y.typeLine(t, "n")
	if got := waitResult(t, res); got.ans.Decision != Deny {
		t.Fatalf("got %+v, want deny", got.ans)
	}
}

func TestShownPayloadCut(t *testing.T) {
	long := `{"content":"` + strings.Repeat("a", 3*maxShown) + `TAIL"}`
	got := shownPayload(long)
	if len(got) > maxShown+200 || !strings.Contains(got, "bytes not shown: deny unless") || !strings.HasSuffix(got, `TAIL"}`) {
		t.Fatalf("cut payload: %d bytes, tail %q", len(got), got[len(got)-20:])
	}
}

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\x1b[31mb", `a\u001b[31mb`},
		{"tab\there", `tab\u0009here`},
		{"bad \xff byte", `bad \xff byte`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"rtl \u202e", `rtl \u202e`},
		{"ünïcödé ok", "ünïcödé ok"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := safe(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
