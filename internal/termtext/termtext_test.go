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
