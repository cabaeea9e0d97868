package policy

import "testing"

// TestMayOverlapReadsBashSets: a shell glob is bash syntax, where "[!a]"
// is any character but "a". Matched as path.Match reads it ("!" a
// literal), "/etc/[!a]hadow" named neither /etc/shadow nor a path under
// /etc, and a deny rule on either was stepped around.
func TestMayOverlapReadsBashSets(t *testing.T) {
	tests := []struct {
		rule, shellGlob string
		want            bool
	}{
		{"/etc/shadow", "/etc/[!a]hadow", true},
		{"/etc/shadow", "/etc/[!s]hadow", false},
		{"/etc/shadow", "/etc/[^s]hadow", false},
		{"/etc/shadow", "/etc/sh?dow", true},
		{"/etc/shadow", "/etc/*", true},
		{"/etc/shadow", "/etc/*/x", false},
		{"/etc/shadow", "/e*/shadow/", false},
		{"/etc/**", "/[!a]tc/passwd", true},
		{"/etc/**", "/[!e]tc/passwd", false},
		{"/etc/**", "/e[[:alpha:]]c/passwd", true},
		{"/etc/**", "/+(etc)/passwd", true}, // extglob: not modelled, may match
		{"/srv/prod/*.key", "/srv/[!p]rod/a.key", false},
		{"/srv/prod/*.key", "/srv/[!x]rod/a.key", true},
	}
	for _, tt := range tests {
		g := compileGlob(tt.rule, tt.rule)
		a := prepare(&PathRef{Path: tt.shellGlob, Glob: true})
		if got := g.test(&a, false); got != tt.want {
			t.Errorf("%q may overlap %q: got %v, want %v", tt.shellGlob, tt.rule, got, tt.want)
		}
	}
}
