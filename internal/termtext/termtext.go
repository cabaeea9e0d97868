// Package termtext makes text from a model, a tool or a file safe to
// draw on a terminal: escape sequences (CSI, OSC, DCS, APC, PM and the
// two-byte ones, 7- and 8-bit), other C0/C1 controls, bidi controls that
// reorder what is shown, line and paragraph separators and invalid UTF-8
// are removed, so such text cannot redraw the screen, retitle the
// terminal or fake a prompt. The chat and session titles share it.
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
			n = escapeLen(s[i:])
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x9e || r == 0x9f: // 8-bit CSI, OSC, DCS, PM, APC
			n += sequenceBody(s[i+n:], r == 0x9b)
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

// escapeLen is the length of the escape sequence at the start of s
// (which starts with ESC); an unterminated one runs to the end.
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

// sequenceBody is the length of a CSI body (csi) up to its final byte,
// or of a string sequence (OSC, DCS, ...) up to BEL or ST.
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
