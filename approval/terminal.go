package approval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxShown bounds the payload a terminal prints; beyond it the head and
// the tail are shown with a warning between them.
const maxShown = 8 << 10

// maxLine bounds an input line; longer lines are refused as answers.
const maxLine = 1 << 10

// ErrTerminalClosed is returned by Send once the terminal's input ended.
var ErrTerminalClosed = errors.New("terminal input closed")

// Terminal is a channel on a reader/writer pair: /dev/tty for the CLI and
// the MCP proxy (whose stdin and stdout carry the protocol). It shows one
// request at a time, oldest first, and reads one line per answer:
//
//	y, yes          allow once
//	n, no, (empty)  deny
//	a, always       allow, and allow this exact action for the session
//	p, pattern      allow, and allow what the shown pattern covers for the session
//
// Input that arrives while no request is shown is ignored, so typed-ahead
// lines do not answer a request that was not on screen. Everything
// printed is the broker's redacted copy, with control, bidirectional and
// other invisible characters shown as \u escapes so a payload cannot
// rewrite the screen or hide part of itself.
type Terminal struct {
	name string
	out  io.Writer
	done chan struct{}

	mu     sync.Mutex
	queue  []termAsk
	closed bool
}

type termAsk struct {
	ask   Ask
	reply Reply
}

var _ Channel = (*Terminal)(nil)

// NewTerminal starts reading answers from in and returns the channel. The
// reader goroutine ends when in returns an error (EOF); requests then
// pending on the terminal can still be answered on other channels or time
// out.
func NewTerminal(name string, in io.Reader, out io.Writer) *Terminal {
	t := &Terminal{name: name, out: out, done: make(chan struct{})}
	go t.read(in)
	return t
}

// Name implements Channel.
func (t *Terminal) Name() string { return t.name }

// Done is closed when the terminal's input has ended.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Send implements Channel: the request is queued and shown when it is the
// oldest one waiting.
func (t *Terminal) Send(_ context.Context, ask Ask, reply Reply) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fmt.Errorf("terminal %s: %w", t.name, ErrTerminalClosed)
	}
	t.queue = append(t.queue, termAsk{ask, reply})
	if len(t.queue) == 1 {
		if err := t.show(); err != nil {
			t.queue = t.queue[:0]
			return fmt.Errorf("terminal %s: show request %s: %w", t.name, ask.ID, err)
		}
	}
	return nil
}

// Resolved implements Channel: a request answered elsewhere, timed out or
// cancelled leaves the screen.
func (t *Terminal) Resolved(_ context.Context, ask Ask, res Resolution) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, q := range t.queue {
		if q.ask.ID != res.ID {
			continue
		}
		t.queue = append(t.queue[:i:i], t.queue[i+1:]...)
		by := ""
		if res.By != "" {
			by = " on " + safe(res.By)
		}
		t.printf("\nrequest %s ended%s: %s (%s)\n", safe(ask.ID), by, res.Decision, safe(res.Code))
		if i == 0 && len(t.queue) > 0 {
			_ = t.show()
		}
		return
	}
}

// read feeds input lines to onLine until the input ends.
func (t *Terminal) read(in io.Reader) {
	defer close(t.done)
	br := bufio.NewReaderSize(in, maxLine)
	for {
		line, err := br.ReadSlice('\n')
		tooLong := errors.Is(err, bufio.ErrBufferFull)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n') // drop the rest of an over-long line
		}
		if len(line) > 0 || err == nil {
			if tooLong {
				line = []byte("\x00") // never a valid answer
			}
			t.onLine(string(line))
		}
		if err != nil {
			t.mu.Lock()
			t.closed = true
			t.mu.Unlock()
			return
		}
	}
}

// onLine takes one line as the answer to the request on screen.
func (t *Terminal) onLine(line string) {
	t.mu.Lock()
	if len(t.queue) == 0 {
		t.printf("(no approval request is waiting; input ignored)\n")
		t.mu.Unlock()
		return
	}
	head := t.queue[0]
	r, ok := parseAnswer(line, &head.ask)
	if !ok {
		t.printf("answer %s\n%s", choices(&head.ask), promptLine(&head.ask))
		t.mu.Unlock()
		return
	}
	t.queue = t.queue[1:]
	t.mu.Unlock()
	err := head.reply(r)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err == nil:
		t.printf("request %s: %s recorded\n", safe(head.ask.ID), describeResponse(r))
	case errors.Is(err, ErrResolved):
		t.printf("request %s had already ended; your answer was ignored\n", safe(head.ask.ID))
	case errors.Is(err, ErrBadResponse):
		t.printf("not accepted: %s\n", safe(err.Error()))
		t.queue = append([]termAsk{head}, t.queue...)
		_ = t.show()
		return
	default:
		t.printf("request %s: %s\n", safe(head.ask.ID), safe(err.Error()))
	}
	if len(t.queue) > 0 {
		_ = t.show()
	}
}

// parseAnswer reads one answer line for ask.
func parseAnswer(line string, ask *Ask) (Response, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return Response{Decision: Allow}, true
	case "", "n", "no":
		return Response{Decision: Deny}, true
	case "a", "always":
		return Response{Decision: Allow, Grant: GrantExact}, ask.Offers(GrantExact)
	case "p", "pattern":
		return Response{Decision: Allow, Grant: GrantPattern}, ask.Offers(GrantPattern) && ask.Pattern != nil
	}
	return Response{}, false
}

func describeResponse(r Response) string {
	if r.Decision == Deny {
		return "deny"
	}
	if r.Grant == GrantNone {
		return "allow once"
	}
	return "allow with " + r.Grant.String() + " grant"
}

// show prints the request at the head of the queue; t.mu held.
func (t *Terminal) show() error {
	a := &t.queue[0].ask
	var b strings.Builder
	fmt.Fprintf(&b, "\n--- approval request %s ---\n", safe(a.ID))
	if a.Session != "" {
		fmt.Fprintf(&b, "session  %s\n", safe(a.Session))
	}
	fmt.Fprintf(&b, "action   %s  %s\n", safe(a.ActionType), safe(a.ActionHash))
	fmt.Fprintf(&b, "why      %s (rule %s, stage %s)\n", safe(a.Reason), safe(a.Rule), safe(a.Stage))
	fmt.Fprintf(&b, "payload  %s\n", shownPayload(string(a.Payload)))
	fmt.Fprintf(&b, "expires  in %s (at %s)\n", a.Expires.Sub(a.Created), a.Expires.UTC().Format("15:04:05 UTC"))
	if n := len(t.queue) - 1; n > 0 {
		fmt.Fprintf(&b, "(%d more waiting)\n", n)
	}
	b.WriteString(choices(a) + "\n" + promptLine(a))
	_, err := io.WriteString(t.out, b.String())
	return err
}

func choices(a *Ask) string {
	s := "y = allow once, n = deny (default)"
	if a.Offers(GrantExact) {
		s += ", a = allow this exact action for the session"
	}
	if a.Pattern != nil && a.Offers(GrantPattern) {
		s += ", p = allow " + safe(a.Pattern.String()) + " for the session"
	}
	return s
}

func promptLine(a *Ask) string {
	keys := "y/N"
	if a.Offers(GrantExact) {
		keys += "/a"
	}
	if a.Pattern != nil && a.Offers(GrantPattern) {
		keys += "/p"
	}
	return "approve? [" + keys + "] "
}

// shownPayload is the payload as printed: escaped, and cut in the middle
// with a warning when it is long.
func shownPayload(p string) string {
	s := safe(p)
	if len(s) <= maxShown {
		return s
	}
	head := strings.ToValidUTF8(s[:maxShown*3/4], "")
	tail := strings.ToValidUTF8(s[len(s)-maxShown/4:], "")
	return head + fmt.Sprintf("\n   [... %d bytes not shown: deny unless you know why it is this long ...]\n   ", len(s)-len(head)-len(tail)) + tail
}

// safe makes untrusted text harmless on a terminal: control characters
// (C0, C1, DEL), format characters (bidirectional overrides, zero-width
// characters), line and paragraph separators and invalid UTF-8 are shown
// as escapes.
func safe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Bidi_Control, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// printf writes to the terminal; t.mu held. A write error is dropped:
// an answer typed after it is still read.
func (t *Terminal) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(t.out, format, args...)
}
