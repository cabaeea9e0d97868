package sessions

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parallax/parallax/internal/store"
)

// firstWordsCount is how many words of the first message make the
// provisional title.
const firstWordsCount = 8

// firstWords is the provisional title: the first words of text, cleaned
// and bounded.
func firstWords(text string) string {
	words := strings.Fields(clean(text))
	if len(words) > firstWordsCount {
		words = words[:firstWordsCount]
	}
	return bound(strings.Join(words, " "), MaxTitle)
}

// cleanTitle makes a model's (or a user's) answer a title: one line of
// printable text without surrounding quotes, at most MaxTitle runes.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(clean(s)), " ")
	s = strings.TrimPrefix(s, "Title:")
	s = strings.TrimSpace(strings.Trim(s, "\"'`*# "))
	return bound(s, MaxTitle)
}

// clean drops terminal escape sequences (ESC [ … final byte, ESC ] …
// BEL or ST, and two-byte ones), other control characters, bidi
// controls, line and paragraph separators and invalid UTF-8; whitespace
// becomes a space.
func clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			n = escapeLen(s[i:])
		case r == utf8.RuneError:
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeLen is the length of the escape sequence at the start of s (which
// starts with ESC); an unterminated one runs to the end.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[': // CSI: parameters, then a final byte 0x40-0x7e
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ESC \
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	return 2
}

// bound cuts s to n runes, marking the cut with an ellipsis.
func bound(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// transcript is what the Titler sees: the first messages, one per line
// ("user: …"), at most maxTranscript bytes.
func transcript(msgs []store.ConversationMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		line := m.Role + ": " + strings.Join(strings.Fields(clean(m.Text)), " ") + "\n"
		if b.Len()+len(line) > maxTranscript {
			rest := maxTranscript - b.Len()
			if rest > 0 {
				b.WriteString(strings.ToValidUTF8(line[:rest], ""))
			}
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
