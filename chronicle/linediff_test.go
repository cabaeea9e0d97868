package chronicle

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	long := func(from, to int, change map[int]string) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
				continue
			}
			b.WriteString("l")
			b.WriteString(strings.Repeat("x", i%3))
			b.WriteString(string(rune('a' + i%26)))
			b.WriteString("\n")
		}
		return b.String()
	}
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"from empty", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\n", "", "--- A\n+++ B\n@@ -1 +0,0 @@\n-a\n"},
		{"middle", "a\nb\nc\n", "a\nB\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"no newline at end", "a\nb", "a\nb\n",
			"--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"insert at start", "b\nc\n", "a\nb\nc\n", "--- A\n+++ B\n@@ -1,2 +1,3 @@\n+a\n b\n c\n"},
		{"two hunks", long(1, 20, map[int]string{2: "two\n", 18: "eighteen\n"}), long(1, 20, nil),
			"--- A\n+++ B\n@@ -1,5 +1,5 @@\n lxb\n-two\n+lxxc\n ld\n lxe\n lxxf\n" +
				"@@ -15,6 +15,6 @@\n lp\n lxq\n lxxr\n-eighteen\n+ls\n lxt\n lxxu\n"},
		{"close changes merge", long(1, 12, map[int]string{3: "3\n", 9: "9\n"}), long(1, 12, nil),
			"--- A\n+++ B\n@@ -1,12 +1,12 @@\n lxb\n lxxc\n-3\n+ld\n lxe\n lxxf\n lg\n lxh\n lxxi\n-9\n+lj\n lxk\n lxxl\n lm\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := unifiedDiff("A", "B", []byte(tc.a), []byte(tc.b))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// applyEdits rebuilds b from a and the script, checking every step.
func applyEdits(t *testing.T, a, b []string, edits []edit) {
	t.Helper()
	var out []string
	ai, bi := 0, 0
	for _, e := range edits {
		switch e.op {
		case ' ':
			if e.ai != ai || e.bi != bi || a[ai] != b[bi] {
				t.Fatalf("bad keep %+v at a%d b%d", e, ai, bi)
			}
			out = append(out, a[ai])
			ai, bi = ai+1, bi+1
		case '-':
			if e.ai != ai {
				t.Fatalf("bad delete %+v at a%d", e, ai)
			}
			ai++
		case '+':
			if e.bi != bi {
				t.Fatalf("bad insert %+v at b%d", e, bi)
			}
			out = append(out, b[bi])
			bi++
		}
	}
	if ai != len(a) || bi != len(b) || strings.Join(out, "") != strings.Join(b, "") {
		t.Fatalf("script does not rebuild b: a%d/%d b%d/%d", ai, len(a), bi, len(b))
	}
}

func TestLineEditsMinimal(t *testing.T) {
	tests := []struct {
		a, b    string
		changes int
	}{
		{"abcabba", "cbabac", 5}, // Myers' paper example: D = 5
		{"abc", "abc", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abcdef", "abXdef", 2},
	}
	for _, tc := range tests {
		a, b := strings.Split(tc.a, ""), strings.Split(tc.b, "")
		if tc.a == "" {
			a = nil
		}
		if tc.b == "" {
			b = nil
		}
		edits := lineEdits(a, b)
		applyEdits(t, a, b, edits)
		n := 0
		for _, e := range edits {
			if e.op != ' ' {
				n++
			}
		}
		if n != tc.changes {
			t.Errorf("%q → %q: got %d changes, want %d", tc.a, tc.b, n, tc.changes)
		}
	}
}

func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("same\n", "same\n")
	f.Add("a\nb", "a\nb\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		al, bl := splitLines([]byte(a)), splitLines([]byte(b))
		if len(al)+len(bl) > 4000 {
			return
		}
		applyEdits(t, al, bl, lineEdits(al, bl))
		u := unifiedDiff("A", "B", []byte(a), []byte(b))
		if (u == "") != (a == b) {
			t.Fatalf("empty diff %v for equal %v", u == "", a == b)
		}
	})
}

func BenchmarkUnifiedDiff(b *testing.B) {
	var x, y strings.Builder
	for i := range 2000 {
		x.WriteString("line " + string(rune('a'+i%26)) + "\n")
		if i%50 == 0 {
			y.WriteString("changed\n")
			continue
		}
		y.WriteString("line " + string(rune('a'+i%26)) + "\n")
	}
	a, c := []byte(x.String()), []byte(y.String())
	for b.Loop() {
		_ = unifiedDiff("a", "b", a, c)
	}
}
