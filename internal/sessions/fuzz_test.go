package sessions

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzCleanTitle: whatever a model or a user answers, a title is valid
// UTF-8, one line, without control or bidi characters, at most MaxTitle
// runes, and cleaning it again changes nothing.
func FuzzCleanTitle(f *testing.F) {
	for _, s := range []string{"Plain", "\x1b[31mred\x1b[0m", "\x1b]0;t\x07x", "a\u202eb", "\xff\xfe", "Title: \"q\"",
		strings.Repeat("é", 100), "\x1b", "\x1bP unterminated"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := cleanTitle(in)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if n := utf8.RuneCountInString(got); n > MaxTitle {
			t.Fatalf("%d runes, at most %d: %q", n, MaxTitle, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("control character %U in %q", r, got)
			}
		}
		if again := cleanTitle(got); again != got && !strings.HasSuffix(got, "…") {
			t.Fatalf("not stable: %q then %q", got, again)
		}
	})
}
