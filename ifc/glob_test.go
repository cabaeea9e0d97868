package ifc

import (
	"github.com/parallax/parallax/internal/glob"
	"strings"
	"testing"
)

func TestSegGlobMeetsAgreesWithSegIntersect(t *testing.T) {
	globs := []string{"*.old", "id_*", "*", "*rsa*", "?d_rsa", ".env*", "[.]env", "a\\*b", "*.pem", "x"}
	rules := []string{"id_rsa", ".env", ".env.local", "key.pem", "old", "a.old", "*.key", "id_*", "?*.pem", "credentials", "x", "\\.hidden", "[.]env"}
	for _, g := range globs {
		for _, r := range rules {
			for _, dots := range []bool{false, true} {
				a := affix{glob: r, meta: strings.ContainsAny(r, "*?[\\\\"), brack: strings.ContainsAny(r, "[\\\\")}
				if got, want := newSegGlob(g, dots).meets(&a), glob.SegIntersect(g, r, dots); got != want {
					t.Errorf("meets(%q, %q, %v): got %v, glob.SegIntersect says %v", g, r, dots, got, want)
				}
			}
		}
	}
}

func TestAppendSegsIsSplitWithoutAllocating(t *testing.T) {
	for _, s := range []string{"", "/", "a", "/a/b", "a//b/", "/home/dev/x"} {
		got, want := appendSegs(nil, s), strings.Split(s, "/")
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("%q: %q vs %q", s, got, want)
		}
	}
	g := newGlobSegs("/home/dev/project/**/*.txt", true)
	if n := testing.AllocsPerRun(100, func() { g.match("/home/dev/project/a/b.txt") }); n != 0 {
		t.Errorf("%v allocs", n)
	}
}

// globMatchPath is the plain matcher globSegs must agree with: both
// paths split, then matchSegList.
func globMatchPath(pat, file string, recursive bool) bool {
	return matchSegList(appendSegs(nil, pat), appendSegs(nil, file), recursive)
}
