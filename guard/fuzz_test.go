package guard

import (
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"/home/u/.ssh/id_rsa", "/w/../home/u/.ssh", "~/.aws/credentials", "/proc/self/root/etc/shadow",
		"/proc/1/task/2/root/proc/self/cwd/x", "/w/a/x", "/w/.parallax", "/w/memory/x.md", "/etc/sha*",
		"/home/*/.ssh/*", "/w/**/*.pem", "/w/[!a]/x", "/w/.ss[[:alpha:]]/x", "/w/@(a|b)/x", "/w/[", "\\",
		"/w/x\x00", "relative", "", "/", "//", "/./..", "/dev/stdout", "/w/.env.example", "/w/.ENV.local",
	} {
		f.Add(s, uint8(action.AccessRead))
	}
	fsys := linkFS{links: map[string]string{
		"/w/a": "/w/b", "/w/b": "/w/a", "/w/l": "/home/u/.ssh", "/w/r": "../home/u",
		"/w/p": "/proc/self/root", "/w/c": "/proc/7/cwd/x",
	}}
	g := New("/w", "/home/u", WithFS(fsys))
	f.Fuzz(func(t *testing.T, p string, acc uint8) {
		a := action.Access(acc)
		for _, check := range []func(string, action.Access) (Finding, bool){g.Check, g.CheckGlob, g.CheckGlobDot} {
			f1, ok1 := check(p, a)
			f2, ok2 := check(p, a)
			if f1 != f2 || ok1 != ok2 {
				t.Fatalf("not deterministic for %q: %+v / %+v", p, f1, f2)
			}
			if !ok1 {
				if f1 != (Finding{}) {
					t.Fatalf("no finding but got %+v", f1)
				}
				continue
			}
			if f1.Rule == "" || f1.Reason == "" || action.CheckPathChars(f1.Reason) != nil {
				t.Fatalf("bad finding for %q: %+v", p, f1)
			}
			if (f1.Rule == RuleTier) != (f1.Decision == verdict.Allow) {
				t.Fatalf("decision %v with rule %s for %q", f1.Decision, f1.Rule, p)
			}
			if f1.Rule == RuleTier && (f1.MinTier < 1 || f1.MinTier > 2) {
				t.Fatalf("tier %d for %q", f1.MinTier, p)
			}
			if strings.Contains(p, "\x00") && f1.Decision != verdict.Block {
				t.Fatalf("NUL path not blocked: %q", p)
			}
		}
	})
}
