package pty

import "strings"

// Strip removes the terminal escape sequences and carriage returns from
// b. It returns the text and how many bytes of b it consumed: an escape
// sequence cut off at the end of b is left unconsumed, so that feeding
// the rest later (prefixed by what was not consumed) gives the same text
// as stripping everything at once.
func Strip(b []byte) (text []byte, n int) {
	text = make([]byte, 0, len(b))
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == 0x1b:
			end, ok := escapeEnd(b, i)
			if !ok {
				return text, i
			}
			i = end
			continue
		case c == '\r', c == 0x07:
		default:
			text = append(text, c)
		}
		i++
	}
	return text, i
}

// escapeEnd is the index just past the escape sequence starting at
// b[i] (an ESC), and false when b ends inside it.
func escapeEnd(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return 0, false
	}
	switch b[i+1] {
	case '[': // CSI: parameters and intermediates, then a final byte
		for j := i + 2; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return j + 1, true
			}
		}
		return 0, false
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to BEL or ST
		for j := i + 2; j < len(b); j++ {
			if b[j] == 0x07 {
				return j + 1, true
			}
			if b[j] == 0x1b {
				if j+1 >= len(b) {
					return 0, false
				}
				if b[j+1] == '\\' {
					return j + 2, true
				}
			}
		}
		return 0, false
	case '(', ')', '*', '+', '#', '%', ' ': // designations: one more byte
		if i+2 >= len(b) {
			return 0, false
		}
		return i + 3, true
	}
	return i + 2, true // two-byte sequences (ESC 7, ESC =, ESC M, ...)
}

// Tail is the last n lines of screen text for a failure message, with
// trailing blanks cut and blank lines and repeats of the line before
// (the redraws of a blinking cursor) left out.
func Tail(text string, n int) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " ")
		if l == "" || (len(lines) > 0 && lines[len(lines)-1] == l) {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
