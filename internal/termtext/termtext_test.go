package termtext

import "testing"

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\ntext", "plain\ntext"},
		{"a\x1b[31mred\x1b[0m", "ared"},
		{"t\x1b]0;title\x07x", "tx"},
		{"t\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "tlink"},
		{"\x1bPdcs\x1b\\after", "after"},
		{"tab\there", "tab    here"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"over\u202eride", "override"},
		{"c1\u009b31mx", "c1x"},
		{"bell\x07", "bell"},
		{"\x1b", ""},
		{"\x1b[", ""},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	f.Add("a\x1b[31mb")
	f.Add("\x1b]0;x\x07")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if r == 0x1b || r == 0x9b || r == '\r' || r == 0x07 {
				t.Fatalf("Clean(%q) = %q keeps a control", s, out)
			}
		}
	})
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\nb\tc", "a b c"},
		{"x\x1b[2Jy\u202ez\xff", "xyz"},
		{"\u2028t\u2029", " t "}, // separators break lines: spaces on one line
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A sequence cut between two pieces of a reply is removed whole: no
// piece of it reaches the terminal, not even as text.
func TestStreamCannotLeakASequenceCutBetweenPieces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		want   string
	}{
		{"OSC 52 clipboard write", []string{"a\x1b]5", "2;c;ZXZpbA==", "\x07b"}, "ab"},
		{"title ended by ST", []string{"a\x1b]0;ti", "tle\x1b", "\\b"}, "ab"},
		{"clear screen", []string{"a\x1b", "[2", "J\x1b[Hb"}, "ab"},
		{"8-bit OSC", []string{"a\u009d0;t", "itle\x07b"}, "ab"},
		{"character cut in two", []string{"caf\xc3", "\xa9"}, "café"},
		{"unterminated at the end", []string{"a\x1b]52;c;ZXZp"}, "a"},
		{"plain pieces", []string{"one ", "two"}, "one two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Stream
			var got string
			for _, p := range tc.pieces {
				got += s.Clean(p)
			}
			got += s.Flush()
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStreamLetsGoOfAnEndlessSequence(t *testing.T) {
	var s Stream
	s.Clean("\x1b]0;")
	s.Clean(string(make([]byte, maxHeld+1)))
	if got := s.Clean("after"); got != "after" {
		t.Errorf("after an endless sequence: got %q, want %q", got, "after")
	}
}

// FuzzStream: a text split anywhere cleans as the whole text does.
func FuzzStream(f *testing.F) {
	f.Add("a\x1b]52;c;x\x07b", 5)
	f.Add("caf\xc3\xa9\x1b[2J", 4)
	f.Fuzz(func(t *testing.T, text string, at int) {
		if len(text) >= maxHeld {
			return
		}
		at = max(0, min(len(text), at))
		var s Stream
		got := s.Clean(text[:at]) + s.Clean(text[at:]) + s.Flush()
		if want := Clean(text); got != want {
			t.Fatalf("split at %d: got %q, want %q", at, got, want)
		}
	})
}
