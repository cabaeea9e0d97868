package pty

import "testing"

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want string
		unread         int // bytes left unconsumed at the end
	}{
		{"plain", "hello\r\nworld", "hello\nworld", 0},
		{"sgr", "\x1b[1;31m✗ BLOCK\x1b[0m rule", "✗ BLOCK rule", 0},
		{"cursor moves", "\x1b[2K\x1b[1A\x1b[?25lline\x1b[?25h", "line", 0},
		{"osc title bel", "\x1b]0;title\x07after", "after", 0},
		{"osc st", "\x1b]11;?\x1b\\after", "after", 0},
		{"dcs", "\x1bPq#0\x1b\\x", "x", 0},
		{"charset", "\x1b(Bok", "ok", 0},
		{"two-byte", "\x1b7a\x1b8b\x1bMc", "abc", 0},
		{"bell", "a\x07b", "ab", 0},
		{"cut csi", "ok\x1b[1;3", "ok", 5},
		{"cut esc", "ok\x1b", "ok", 1},
		{"cut osc", "ok\x1b]0;ti", "ok", 6},
		{"cut st", "ok\x1b]0;ti\x1b", "ok", 7},
		{"cut charset", "ok\x1b(", "ok", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Strip([]byte(tt.in))
			if string(got) != tt.want || len(tt.in)-n != tt.unread {
				t.Errorf("Strip(%q) = %q, %d unread; want %q, %d unread", tt.in, got, len(tt.in)-n, tt.want, tt.unread)
			}
		})
	}
}

// Feeding the output in any two pieces, the unconsumed rest carried
// over, gives the same text as stripping it at once.
func TestStripSplit(t *testing.T) {
	in := "a\x1b[1;31mB\x1b[0m\x1b]0;t\x07c\x1b]1;u\x1b\\d\x1b(Be\x1b7f\r\ng"
	whole, n := Strip([]byte(in))
	if n != len(in) || string(whole) != "aBcdef\ng" {
		t.Fatalf("Strip(%q) = %q, %d consumed", in, whole, n)
	}
	for cut := 0; cut <= len(in); cut++ {
		first, used := Strip([]byte(in[:cut]))
		rest, used2 := Strip([]byte(in[used:cut] + in[cut:]))
		if got := string(first) + string(rest); got != string(whole) || used2 != len(in)-used {
			t.Errorf("cut at %d: got %q (%d consumed of the rest), want %q", cut, got, used2, whole)
		}
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"repeats and blanks", "a  \n\n› x\n› x  \n› x\nb", 10, "a\n› x\nb"},
		{"last lines", "1\n2\n3\n4", 2, "3\n4"},
		{"empty", "\n \n", 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tail(tt.in, tt.n); got != tt.want {
				t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
