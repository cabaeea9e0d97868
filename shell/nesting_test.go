package shell

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestSyntaxNesting(t *testing.T) {
	for _, c := range []struct {
		code string
		want int
	}{
		{"ls -la", 0},
		{"echo $(date)", 1},
		{"(cd /tmp && (ls))", 2},
		{"echo $(( (1+2) * 3 ))", 3},
		{`echo "$(echo "$(id)")"`, 4},
		{`echo ')))' ((((`, 4},        // a quoted closer closes nothing
		{`echo "\")" ${x:-(}`, 2},     // escaped quote stays in the string
		{`awk '{ if (x) { y } }'`, 0}, // single-quoted text is text
		{"a\\(b", 0},
	} {
		if got := syntaxNesting(c.code, MaxSyntaxNesting); got != c.want {
			t.Errorf("%q: got %d, want %d", c.code, got, c.want)
		}
	}
}

// TestAnalyzeBoundedOnDeepNesting reproduces issue 13 on the shell
// analyser: within the 64 KiB bound, 30k nested subshells parsed and
// walked in ~0.5 s and ~260 MB and came out ALLOW-able ("routine").
// Each form is now limit_exceeded before parsing. Figures are logged.
func TestAnalyzeBoundedOnDeepNesting(t *testing.T) {
	forms := map[string]func(n int) string{
		"subshell":     func(n int) string { return strings.Repeat("(", n) + "ls" + strings.Repeat(")", n) },
		"substitution": func(n int) string { return "echo " + strings.Repeat("$(", n) + "x" + strings.Repeat(")", n) },
		"arithmetic":   func(n int) string { return "echo $((" + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "))" },
		"brace group":  func(n int) string { return strings.Repeat("{ ", n) + "ls;" + strings.Repeat(" }", n) },
		"in quotes":    func(n int) string { return strings.Repeat(`"$(`, n) + "x" + strings.Repeat(`)"`, n) },
	}
	for name, gen := range forms {
		for _, n := range []int{MaxSyntaxNesting + 1, 10_000, 20_000} {
			code := gen(n)
			if len(code) > DefaultMaxBytes {
				continue
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			eff := Analyze(code, Options{Cwd: "/w"})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			t.Logf("%s, %d levels (%d bytes): %v, %d KB allocated", name, n, len(code), took,
				(after.TotalAlloc-before.TotalAlloc)>>10)
			if !hasTag(eff, TagLimitExceeded, "nesting") {
				t.Errorf("%s, %d levels: tags %v, want limit_exceeded nesting", name, n, eff.Tags)
			}
		}
	}
	// Just under the bound, the code is analysed as usual.
	if eff := Analyze(strings.Repeat("( ", 100)+"cat /etc/shadow"+strings.Repeat(" )", 100), Options{Cwd: "/w"}); hasTag(eff, TagLimitExceeded, "nesting") || len(eff.Paths) == 0 {
		t.Errorf("100 levels: %+v, want analysed with the key read", eff)
	}
}

func hasTag(eff *Effects, k TagKind, detail string) bool {
	for _, tg := range eff.Tags {
		if tg.Kind == k && tg.Detail == detail {
			return true
		}
	}
	return false
}
