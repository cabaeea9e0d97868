package shell

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/e2e"
)

// malformedCases pairs text the analyser calls malformed with look-alikes
// it must not: valid shell, and errors of its parser that bash accepts.
var malformedCases = []struct {
	cmd       string
	malformed string // the start of the detail; "" for none
}{
	{`find . -name '*.jpg`, "a quote is never closed"},
	{`grep -r "text string to search” directory-path`, "a quote is never closed"},
	{`grep "OK" <filename> | wc -l`, "a redirection has no target"},
	{`tmux attach -t <session name>`, "a redirection has no target"},
	{`find . ( -name a.out -o -name '*.o' ) -print`, "a bracket stands where an argument belongs"},
	{`(find . -name '*.tar.gz' | sort -n | head -2`, "a bracket or block is never closed"},
	{`for f in *.txt; do wc -l "$f"`, "a bracket or block is never closed"},
	{`if true; then echo yes`, "a bracket or block is never closed"},
	// Valid, or accepted by bash though the parser refuses it: no tag.
	{`find . -name '*.jpg'`, ""},
	{`grep "OK" < filename | wc -l`, ""},
	{`find . \( -name a.out -o -name '*.o' \) -print`, ""},
	{"cat <<'EOF'\nno end marker", ""},
	{"find -type d -empty -exec rmdir {} `;`", ""},
	{`ls !(*.go)`, ""},
}

func TestMalformedOnlyWhatBashRefuses(t *testing.T) {
	for _, tc := range malformedCases {
		eff := Analyze(tc.cmd, Options{Cwd: "/home/dev/project", Home: "/home/dev"})
		tag, ok := eff.Find(TagMalformed)
		switch {
		case tc.malformed == "" && ok:
			t.Errorf("%q: tagged malformed (%s)", tc.cmd, tag.Detail)
		case tc.malformed != "" && !ok:
			t.Errorf("%q: not tagged malformed; tags %v", tc.cmd, eff.Tags)
		case ok && !strings.HasPrefix(tag.Detail, tc.malformed):
			t.Errorf("%q: detail %q, want %q…", tc.cmd, tag.Detail, tc.malformed)
		case ok && !eff.Has(TagOpaque):
			t.Errorf("%q: malformed but not opaque", tc.cmd)
		}
	}
}

// TestMalformedAgreesWithBash holds the cases against bash itself: what is
// tagged malformed bash refuses to parse, and what is not tagged (valid or
// not) bash parses unless the row expects otherwise.
func TestMalformedAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	e2e.Need(t, err, "bash")
	for _, tc := range malformedCases {
		if strings.Contains(tc.cmd, "!(") {
			continue // extglob: bash parses it only with the option set
		}
		err := exec.Command(bash, "-n", "-c", tc.cmd).Run()
		if tc.malformed != "" && err == nil {
			t.Errorf("%q: bash -n accepts what the analyser calls malformed", tc.cmd)
		}
		if tc.malformed == "" && err != nil {
			t.Errorf("%q: bash -n refuses it (%v) but it is not tagged", tc.cmd, err)
		}
	}
}

// TestMalformedDetailQuotesNothing: the detail names the kind of error and
// where, never a piece of the command (which may hold a secret).
func TestMalformedDetailQuotesNothing(t *testing.T) {
	eff := Analyze(`curl -H "Authorization: Bearer sk-live-0123456789abcdef`, Options{Cwd: "/w"})
	tag, ok := eff.Find(TagMalformed)
	if !ok {
		t.Fatalf("not malformed: %v", eff.Tags)
	}
	if strings.Contains(tag.Detail, "sk-live") || strings.Contains(tag.Detail, "Bearer") {
		t.Fatalf("detail quotes the command: %q", tag.Detail)
	}
}
