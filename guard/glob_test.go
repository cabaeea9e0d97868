package guard

import (
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

func TestCheckGlob(t *testing.T) {
	f := newFixture(t)
	B := verdict.Block
	cases := []checkCase{
		{"ssh by question mark", "~/.ss?/*", rd, RuleRestricted, B, 0},
		{"ssh dir star", "~/.ssh/*", rd, RuleRestricted, B, 0},
		{"ssh pub only", "~/.ssh/*.pub", rd, "", 0, 0},
		{"ssh pub write", "~/.ssh/*.pub", wr, RuleProtected, B, 0},
		{"ssh class", "~/.[s]sh/id_rsa", rd, RuleRestricted, B, 0},
		{"bang class", "~/.ss[!x]/config", rd, RuleRestricted, B, 0},
		{"posix class", "~/.ss[[:alpha:]]/config", rd, RuleRestricted, B, 0},
		{"any home ssh", "/home/*/.ssh/*", rd, RuleRestricted, B, 0},
		{"any dir id_rsa", "~/*/id_rsa", rd, RuleRestricted, B, 0},
		{"pem files", "$W/*.pem", rd, RuleRestricted, B, 0},
		{"key files", "/tmp/*.ke?", rd, RuleRestricted, B, 0},
		{"env star", "$W/.env*", rd, RuleRestricted, B, 0},
		{"env dot star", "$W/.env.*", rd, RuleRestricted, B, 0},
		{"dot star", "$W/.*", rd, RuleSealed, B, 0},
		{"dot question", "~/.??*/*", rd, RuleSealed, B, 0},
		{"go files", "$W/*.go", rd, "", 0, 0},
		{"go files write", "$W/src/*.go", wr, "", 0, 0},
		{"deep go files", "$W/**/*.go", rd, "", 0, 0},
		{"star hides dot names", "~/*/config", rd, "", 0, 0},
		{"star in home", "~/*", rd, "", 0, 0},
		{"globstar ssh", "~/**/id_rsa", rd, RuleRestricted, B, 0},
		// "**" patterns come from find-like selections, which descend
		// into dot directories: judged as operations over a tree.
		{"tree read over home", "~/**/config", rd, RuleTree, verdict.Escalate, 0},
		{"tree read of workspace", "$W/**", rd, "", 0, 0},
		{"tree narrowed to names", "$W/**/*.o", del, "", 0, 0},
		{"tree write of workspace", "$W/**", wr, RuleTree, verdict.Escalate, 0},
		{"tree delete of workspace", "$W/**", del, RuleTree, verdict.Escalate, 0},
		{"tree under restricted", "~/.ssh/**", rd, RuleRestricted, B, 0},
		{"tree of keys by name", "$W/**/.env", rd, RuleRestricted, B, 0},
		{"tree of system", "/**/*.md", rd, RuleTree, verdict.Escalate, 0},
		{"tree write reaches identity", "$W/**/*.md", wr, RuleReadOnly, B, 0},
		{"tree write reaches deep identity", "$W/**/skills/*.md", wr, RuleReadOnly, B, 0},
		{"tree read in home areas", "~/**/*.txt", rd, RuleTree, verdict.Escalate, 0},
		{"workspace star delete", "$W/*", del, RuleReadOnly, B, 0},
		{"workspace star write", "$W/*.md", wr, RuleReadOnly, B, 0},
		{"memory glob write", "$W/memory/*.md", wr, RuleTier, verdict.Allow, 1},
		{"delete all homes", "~/../*", del, RuleSealed, B, 0},
		{"sealed by star", "$W/.par*/x", rd, RuleSealed, B, 0},
		{"git hooks", "$W/.git/hooks/*", wr, RuleProtected, B, 0},
		{"extglob", "~/@(.ssh|x)/id_*", rd, RuleSealed, B, 0},
		{"malformed", "/tmp/[a", rd, "", 0, 0},
		{"literal is Check", "~/.ssh/id_rsa", rd, RuleRestricted, B, 0},
		{"relative", "*.pem", rd, RuleBadPath, B, 0},
		// expansion against the real tree
		{"link behind star", "$W/li*/id_rsa", rd, RuleRestricted, B, 0},
		{"link behind star listing", "$W/l*/*", rd, RuleRestricted, B, 0},
		{"link in literal prefix", "$W/link/*", rd, RuleRestricted, B, 0},
		{"link loop behind star", "$W/loop*/x", rd, RuleBadPath, B, 0},
		{"dot dot behind link", "$W/src/u?/../.bashrc", wr, RuleProtected, B, 0},
	}
	runCases(t, f, cases, f.g.CheckGlob)
	// Again in reverse order, with what the tables say of each glob
	// remembered: the same glob read and written must not share it.
	rev := make([]checkCase, len(cases))
	for i, c := range cases {
		c.name = "again " + c.name
		rev[len(cases)-1-i] = c
	}
	runCases(t, f, rev, f.g.CheckGlob)
}

func TestCheckGlobDot(t *testing.T) {
	f := newFixture(t)
	cases := []checkCase{
		{"star matches ssh", "~/*/config", rd, RuleSealed, verdict.Block, 0},
		{"tree read skips the workspace's own seal", "$W/**/x", rd, "", 0, 0},
		{"tree write by other names", "$W/**/x", wr, "", 0, 0},

		{"plain", "/usr/share/*/x", rd, "", 0, 0},
	}
	runCases(t, f, cases, f.g.CheckGlobDot)
}

func TestCheckGlobTooMany(t *testing.T) {
	f := newFixture(t)
	for i := range maxExpand + 1 {
		write(t, f.ws+"/src/f"+itoa(i))
	}
	got, ok := f.g.CheckGlob(f.ws+"/src/*", rd)
	if !ok || got.Rule != RuleBadPath {
		t.Fatalf("got %+v, want %s", got, RuleBadPath)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestCandidatesAreSound: an entry left out of a pattern's candidates can
// never be reached by it, for every pattern and every table entry.
func TestCandidatesAreSound(t *testing.T) {
	g := New("/home/dev/project", "/home/dev")
	patterns := []string{"/home/dev/project/*/*.rm", "/home/dev/*", "/home/*/.ssh/*", "/etc/cron.*/x", "/*",
		"/home/dev/project/**/*.go", "/root/**", "/home/dev/.aws/cred*", "/etc/*", "/proc/*/environ",
		"/home/dev/project/.parallax/*", "/home", "/home/dev/.config/*/x", "/var/spool/cron/*"}
	for _, p := range patterns {
		segs, bad := bashSegs(splitSegs(fold(p)))
		if bad != "" {
			t.Fatalf("%s: %s", p, bad)
		}
		in := map[string]bool{}
		for _, ge := range g.candidates(segs) {
			in[ge.e.path] = true
		}
		for _, ge := range g.globs {
			if in[ge.e.path] {
				continue
			}
			for _, dot := range []bool{false, true} {
				if rel := reach(segs, ge.segs, dot, nil, nil); rel != 0 {
					t.Errorf("%s: left out %s, which it reaches (%d)", p, ge.e.path, rel)
				}
			}
		}
	}
}

// TestStaticMemoKeepsQuestionsApart: what the tables say of a glob is
// remembered per access and per dot rule. On a home that does not exist
// (nothing for expansion to find), the same glob asked both ways, in
// both orders, on a fresh guard, gets each way's own answer.
func TestStaticMemoKeepsQuestionsApart(t *testing.T) {
	const home = "/nonexistent-parallax-guard-test/u"
	type ask struct {
		dot  bool
		acc  action.Access
		rule string
	}
	pairs := []struct {
		pat  string
		a, b ask
	}{
		{home + "/.ssh/*.pub", ask{false, rd, ""}, ask{false, wr, RuleProtected}},
		{home + "/*/config", ask{false, rd, ""}, ask{true, rd, RuleSealed}},
	}
	check := func(g *Guard, pat string, q ask) string {
		f, ok := g.CheckGlob(pat, q.acc)
		if q.dot {
			f, ok = g.CheckGlobDot(pat, q.acc)
		}
		if !ok {
			return ""
		}
		return f.Rule
	}
	for _, p := range pairs {
		for _, order := range [][2]ask{{p.a, p.b}, {p.b, p.a}} {
			g := New(home+"/proj", home)
			for _, q := range order {
				if got := check(g, p.pat, q); got != q.rule {
					t.Errorf("%s (dot %v, access %v) after %v: got %q, want %q", p.pat, q.dot, q.acc, order[0], got, q.rule)
				}
			}
		}
	}
}

func TestLeadingSegs(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/usr/lib/x86_64/*.so", "/home/dev/project/**/*.bak", "/a/"} {
		segs := splitSegs(p)
		for n := 1; n <= len(segs); n++ {
			want := "/" + strings.Join(segs[:n], "/")
			if got := leadingSegs(p, n); got != want {
				t.Errorf("leadingSegs(%q, %d) = %q, want %q", p, n, got, want)
			}
		}
	}
}
