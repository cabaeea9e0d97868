package heuristic

import (
	"slices"
	"strings"
	"testing"
)

func TestCodeSpans(t *testing.T) {
	text := "do `a b` then\n```bash\nc | d\n```\n@bot run: e f (for the log)\n$ g h\nnever run `x y`, don't type `rm z`\n" +
		"don't forget to run `k l`"
	want := []string{"c | d", "a b", "k l", "e f (for the log)", "e f", "g h"}
	if got := CodeSpans(text); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := len(CodeSpans(strings.Repeat("`x y` `z w` ", 100))); n > maxSpans {
		t.Errorf("%d spans, want at most %d", n, maxSpans)
	}
}
