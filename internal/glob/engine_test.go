package glob

import (
	"strings"
	"testing"
)

// TestSegmentPrefiltersAreSound checks the cheap disjointness tests
// against the product automaton: they may only say "disjoint" when the
// automaton finds no common path.
func TestSegmentPrefiltersAreSound(t *testing.T) {
	globs := []string{"/home/dev/project/*/*.css", "/home/dev/project/*/*.rm", "/*/*.md.html", "/etc/*", "/etc/cron.d/x/y", "/home/dev/project/?parallax/x",
		"/home/dev/project/[.]parallax/*", "/home/dev/.git/hooks/*", "/home/*/.ssh/*", "/*/*/.bashrc",
		"/etc/cron.d/*", "/home/dev/project/.github/workflows/*.yml", "/tmp/*", "/*", "/home/dev/*/hooks/pre-*",
		"/home/dev/.config/*/autostart/*.desktop", "/var/spool/cron/*", "/home/dev/x/**/y"}
	rules := []string{"/etc/cron*/**", "/etc/**", "/**/x/y", "/home/dev/project/.parallax/**", "/home/dev/project/.parallax", "/**/.git/hooks/*", "/home/*/.ssh/**", "/**/.bashrc", "/etc/cron.*/**", "/**/.github/workflows/*",
		"/home/*/.config/autostart/*", "/var/spool/cron/**", "/**/id_*", "/etc/**", "/**/hooks/**", "/home/dev/**/.env"}
	for _, g := range globs {
		for _, r := range rules {
			full := PatternsIntersect(Compile(g, Shell), Compile(r, Rule))
			if full && (leadDisjoint(g, r) || tailDisjoint(g, r)) {
				t.Errorf("prefilter says %q and %q are disjoint; the automaton finds a common path", g, r)
			}
			if full != Intersect(g, r) {
				t.Errorf("Intersect(%q, %q) = %v; the automaton alone says %v", g, r, !full, full)
			}
		}
	}
}

// TestSegPairMeetsAgrees: the shortcuts answer as the automaton does.
func TestSegPairMeetsAgrees(t *testing.T) {
	shell := []string{"*", "www", ".bashrc", "id_rsa", "a[b", "x?", "*.sh", ".*", "[.]x", "", "a*b", "\\*"}
	rules := []string{"*", ".bashrc", "www", "id_*", "?*", "*.sh", ".config", "a[b", "x?", "?", "", "autostart"}
	for _, a := range shell {
		for _, b := range rules {
			ok, done := SegPairMeets(a, b)
			if !done {
				continue
			}
			if want := PatternsIntersect(Compile(a, Shell), Compile(b, Rule)); ok != want {
				t.Errorf("SegPairMeets(%q, %q) = %v, the automaton says %v", a, b, ok, want)
			}
		}
	}
}

func FuzzSegPairMeets(f *testing.F) {
	for _, s := range [][2]string{{"*", ".bashrc"}, {"www", "*"}, {"x?", "x*"}, {"a[b", "a[b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsAny(a+b, "/") || strings.Contains(b, "**") || len(a) > 32 || len(b) > 32 {
			return
		}
		if ok, done := SegPairMeets(a, b); done {
			if want := PatternsIntersect(Compile(a, Shell), Compile(b, Rule)); ok != want {
				t.Fatalf("SegPairMeets(%q, %q) = %v, the automaton says %v", a, b, ok, want)
			}
		}
	})
}
