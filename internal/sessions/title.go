package sessions

import (
	"strings"
	"unicode/utf8"

	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/termtext"
)

// firstWordsCount is how many words of the first message make the
// provisional title.
const firstWordsCount = 8

// firstWords is the provisional title: the first words of text, cleaned
// and bounded.
func firstWords(text string) string {
	words := strings.Fields(termtext.OneLine(text))
	if len(words) > firstWordsCount {
		words = words[:firstWordsCount]
	}
	return bound(strings.Join(words, " "), MaxTitle)
}

// cleanTitle makes a model's (or a user's) answer a title: one line of
// printable text without surrounding quotes, at most MaxTitle runes.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(termtext.OneLine(s)), " ")
	s = strings.TrimPrefix(s, "Title:")
	s = strings.TrimSpace(strings.Trim(s, "\"'`*# "))
	return bound(s, MaxTitle)
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
		line := m.Role + ": " + strings.Join(strings.Fields(termtext.OneLine(m.Text)), " ") + "\n"
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
