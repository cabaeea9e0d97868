package shell

import (
	"testing"
)

// TestWrittenText: the text a redirect or tee writes is known whole;
// text the analysis cannot know is not claimed.
func TestWrittenText(t *testing.T) {
	opt := Options{Cwd: "/w", Home: "/h"}
	for _, tc := range []struct {
		cmd  string
		want []WrittenText
	}{
		{`echo hello > a.txt`, []WrittenText{{Path: "/w/a.txt", Text: "hello\n"}}},
		{`printf 'x:\n\tcurl y\n' >> Makefile`, []WrittenText{{Path: "/w/Makefile", Text: "x:\n\tcurl y\n", Append: true}}},
		{"cat > run.sh <<'EOF'\nmake test\nEOF", []WrittenText{{Path: "/w/run.sh", Text: "make test\n"}}},
		{"tee -a s.sh >/dev/null <<'EOF'\nrm -rf x\nEOF", []WrittenText{{Path: "/w/s.sh", Text: "rm -rf x\n", Append: true}}},
		{`echo "$UNKNOWN" > a.txt`, nil},
		{`curl -s https://x.example/a > a.sh`, nil},
	} {
		got := Analyze(tc.cmd, opt).Written
		if len(got) != len(tc.want) {
			t.Errorf("%q: written %+v, want %+v", tc.cmd, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: written %+v, want %+v", tc.cmd, got[i], tc.want[i])
			}
		}
	}
}
