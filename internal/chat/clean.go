package chat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes text safe to draw: escape sequences (CSI, OSC, DCS and
// the rest) and other control characters are removed, tabs become
// spaces, invalid UTF-8 becomes U+FFFD. Newlines are kept.
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune('\uFFFD')
		case r == 0x1b:
			n = escapeLen(s[i:])
		case r == 0x9b || r == 0x9d || r == 0x90: // 8-bit CSI, OSC, DCS
			n += sequenceBody(s[i+n:], r == 0x9b)
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || isBidi(r):
			// dropped: C0/C1 controls and bidi overrides that reorder what is shown
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeLen is the length of the escape sequence at the start of s.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + sequenceBody(s[2:], true)
	case ']', 'P', '_', '^', 'X':
		return 2 + sequenceBody(s[2:], false)
	}
	return 2 // a two-byte escape (ESC c, ESC 7, ...)
}

// sequenceBody is the length of a CSI body (csi) up to its final byte, or
// of a string sequence (OSC, DCS, ...) up to BEL or ST.
func sequenceBody(s string, csi bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			continue
		}
		if c == 0x07 {
			return i + 1
		}
		if c == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
			return i + 2
		}
	}
	return len(s)
}

func isBidi(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f'
}
