package benchscript

import (
	"strings"
	"testing"
)

func TestScriptHasExactlyNLines(t *testing.T) {
	for _, n := range []int{1, 20, 60, 200} {
		s := Script(n)
		if got := strings.Count(s, "\n"); got != n {
			t.Errorf("Script(%d) has %d lines, want %d", n, got, n)
		}
		if Script(n) != s {
			t.Errorf("Script(%d) differs between two calls", n)
		}
	}
	if len(parts) < 20 {
		t.Errorf("%d parts, want the 20 or more of parts.sh", len(parts))
	}
}
