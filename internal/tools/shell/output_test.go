//go:build linux

package shell

import (
	"strings"
	"testing"
)

func TestHeadTail(t *testing.T) {
	cases := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", false},
		{"exactly", 6, []string{"abc", "def"}, "abcdef", false},
		{"one over", 6, []string{"abc", "defg"}, "abc\n[… 1 bytes omitted …]\nefg", true},
		{"many small writes", 4, strings.Split("abcdefghij", ""), "ab\n[… 6 bytes omitted …]\nij", true},
		{"one big write", 4, []string{"abcdefghij"}, "ab\n[… 6 bytes omitted …]\nij", true},
		{"ring wraps", 6, []string{"abc", "de", "fg", "hi", "jk"}, "abc\n[… 5 bytes omitted …]\nijk", true},
		{"utf8 not cut", 6, []string{"ééééé"}, "é\n[… 6 bytes omitted …]\né", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newHeadTail(c.limit)
			for _, w := range c.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("write: %d, %v", n, err)
				}
			}
			got, tr := b.String()
			if got != c.want || tr != c.truncated {
				t.Fatalf("got %q (%v), want %q (%v)", got, tr, c.want, c.truncated)
			}
		})
	}
}
