// Package termtext makes text from a model, a tool or a file safe to
// draw on a terminal: escape sequences (CSI, OSC, DCS, APC, PM and the
// two-byte ones, 7- and 8-bit), other C0/C1 controls, bidi controls that
// reorder what is shown, line and paragraph separators and invalid UTF-8
// are removed, so such text cannot redraw the screen, retitle the
// terminal or fake a prompt. The chat, session titles and plain
// `parallax run` (Stream, for a reply that arrives in pieces) share it.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean keeps newlines, turns tabs into four spaces and invalid UTF-8
// into U+FFFD, and drops the rest (see the package doc).
func Clean(s string) string { return clean(s, false) }

// OneLine is Clean for one line: every whitespace character becomes a
// space and invalid UTF-8 is dropped.
func OneLine(s string) string { return clean(s, true) }

func clean(s string, oneLine bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if !oneLine {
				b.WriteRune('\uFFFD')
			}
		case r == 0x1b:
			n, _ = escapeLen(s[i:])
		case introducer(r):
			body, _ := sequenceBody(s[i+n:], r == 0x9b)
			n += body
		case oneLine && unicode.IsSpace(r):
			b.WriteByte(' ')
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// introducer reports the 8-bit CSI, OSC, DCS, PM and APC.
func introducer(r rune) bool {
	return r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f
}

// escapeLen is the length of the escape sequence at the start of s
// (which starts with ESC) and whether it ended; an unterminated one runs
// to the end.
func escapeLen(s string) (int, bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[':
		n, ok := sequenceBody(s[2:], true)
		return 2 + n, ok
	case ']', 'P', '_', '^', 'X':
		n, ok := sequenceBody(s[2:], false)
		return 2 + n, ok
	}
	return 2, true // a two-byte escape (ESC c, ESC 7, ...)
}

// sequenceBody is the length of a CSI body (csi) up to its final byte,
// or of a string sequence (OSC, DCS, ...) up to BEL or ST, and whether
// that end was found.
func sequenceBody(s string, csi bool) (int, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1, true
			}
			continue
		}
		if c == 0x07 {
			return i + 1, true
		}
		if c == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
			return i + 2, true
		}
	}
	return len(s), false
}

// maxHeld bounds what a Stream holds back: an escape sequence that has
// not ended within it is cleaned (removed) rather than waited for.
const maxHeld = 4096

// Stream cleans text that arrives in pieces, as a model's reply does. An
// escape sequence or a character cut between two pieces is held until
// the rest arrives, so it is removed whole instead of its tail reaching
// the screen as text. The zero value is ready; Flush ends the text.
type Stream struct{ held string }

// Clean is Clean of what can be shown of the text so far.
func (s *Stream) Clean(piece string) string {
	buf := s.held + piece
	cut := pending(buf)
	if len(buf)-cut > maxHeld {
		cut = len(buf)
	}
	s.held = buf[cut:]
	return Clean(buf[:cut])
}

// Flush is Clean of what is held (an unterminated sequence is removed).
func (s *Stream) Flush() string {
	out := Clean(s.held)
	s.held = ""
	return out
}

// pending is where an escape sequence or a character that has not ended
// by the end of s starts (len(s) when none).
func pending(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && !utf8.FullRuneInString(s[i:]):
			return i
		case r == 0x1b:
			k, ok := escapeLen(s[i:])
			if !ok {
				return i
			}
			n = k
		case introducer(r):
			k, ok := sequenceBody(s[i+n:], r == 0x9b)
			if !ok {
				return i
			}
			n += k
		}
		i += n
	}
	return len(s)
}
