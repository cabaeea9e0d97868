package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

const (
	rd  = action.AccessRead
	wr  = action.AccessWrite
	del = action.AccessDelete
)

// fixture is a real directory tree: <root>/home/u is the home and
// <root>/home/u/proj the workspace.
type fixture struct {
	root, home, ws string
	g              *Guard
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home", "u")
	ws := filepath.Join(home, "proj")
	for _, d := range []string{
		filepath.Join(home, ".ssh"),
		filepath.Join(home, ".config", "git"),
		filepath.Join(ws, "src"),
		filepath.Join(ws, "skills"),
		filepath.Join(ws, "memory"),
		filepath.Join(ws, ".parallax"),
	} {
		mkdir(t, d)
	}
	for _, f := range []string{
		filepath.Join(home, ".ssh", "id_rsa"),
		filepath.Join(home, ".ssh", "id_ed25519.pub"),
		filepath.Join(home, ".bashrc"),
		filepath.Join(ws, "main.go"),
		filepath.Join(ws, ".env"),
		filepath.Join(ws, ".env.example"),
		filepath.Join(ws, "SOUL.md"),
	} {
		write(t, f)
	}
	links := map[string]string{
		filepath.Join(ws, "link"):      filepath.Join(home, ".ssh"), // absolute
		filepath.Join(ws, "rel"):       "../.ssh",                   // relative
		filepath.Join(ws, "chain1"):    "chain2",
		filepath.Join(ws, "chain2"):    "chain3",
		filepath.Join(ws, "chain3"):    filepath.Join(home, ".ssh"),
		filepath.Join(ws, "loop1"):     "loop2",
		filepath.Join(ws, "loop2"):     "loop1",
		filepath.Join(ws, "key"):       filepath.Join(home, ".ssh", "id_rsa"),
		filepath.Join(ws, "etc"):       "/etc",
		filepath.Join(ws, "pubfake"):   "/dev/null",
		filepath.Join(ws, "src", "up"): "..",
		filepath.Join(ws, "dangle"):    filepath.Join(home, ".ssh", "new"),
		filepath.Join(ws, "sealed"):    ".parallax",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return fixture{root: root, home: home, ws: ws, g: New(ws, home)}
}

func mkdir(t testing.TB, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t testing.TB, f string) {
	t.Helper()
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

type checkCase struct {
	name    string
	path    string // "~" and "$W" expand to the fixture home and workspace
	acc     action.Access
	rule    string // "" means nothing applies
	dec     verdict.Decision
	minTier int
}

func (f fixture) expand(p string) string {
	p = strings.ReplaceAll(p, "$W", f.ws)
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = f.home + p[1:]
	}
	return p
}

func runCases(t *testing.T, f fixture, cases []checkCase, check func(string, action.Access) (Finding, bool)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := check(f.expand(c.path), c.acc)
			if c.rule == "" {
				if ok {
					t.Fatalf("got %+v, want nothing", got)
				}
				return
			}
			if !ok {
				t.Fatalf("got nothing, want %s", c.rule)
			}
			if got.Rule != c.rule || got.Decision != c.dec || got.MinTier != c.minTier {
				t.Fatalf("got %s/%v/tier %d (%s), want %s/%v/tier %d",
					got.Rule, got.Decision, got.MinTier, got.Reason, c.rule, c.dec, c.minTier)
			}
			if got.Reason == "" || strings.Contains(got.Reason, "\x00") {
				t.Fatalf("got reason %q, want one sentence", got.Reason)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	f := newFixture(t)
	B := verdict.Block
	cases := []checkCase{
		// a path ending in the first part of a component rule (.git of
		// .git/hooks) may be read; written (a directory moved or copied
		// there, a gitdir file) it would hold what the rule protects
		{"git dir itself", "$W/.git", rd, "", 0, 0},
		{"git dir write", "$W/.git", wr, RuleProtected, B, 0},
		{"claude dir write", "$W/sub/.claude", wr, RuleProtected, B, 0},
		{"claude dir read", "~/.claude", rd, "", 0, 0},
		{"claude commands dir write", "$W/.claude/commands", wr, RuleTier, verdict.Allow, 2},
		{"git-like name", "$W/.github", wr, "", 0, 0},
		// a directory written (moved, copied, made) where it would hold
		// protected paths
		{"write to hold vim plugins", "~/.vim", wr, RuleProtected, B, 0},
		{"write to hold cargo credentials", "~/.cargo", wr, RuleRestricted, B, 0},
		{"write below a holder", "~/.cargo/bin", wr, "", 0, 0},
		{"read a holder", "~/.vim", rd, "", 0, 0},
		// restricted by place
		{"ssh key read", "~/.ssh/id_rsa", rd, RuleRestricted, B, 0},
		{"ssh dir list", "~/.ssh", rd, RuleRestricted, B, 0},
		{"ssh pub read", "~/.ssh/id_ed25519.pub", rd, "", 0, 0},
		{"ssh pub write", "~/.ssh/id_ed25519.pub", wr, RuleProtected, B, 0},
		{"ssh authorized_keys write", "~/.ssh/authorized_keys", wr, RuleRestricted, B, 0},
		{"ssh known_hosts read", "~/.ssh/known_hosts", rd, RuleRestricted, B, 0},
		{"aws", "~/.aws/credentials", rd, RuleRestricted, B, 0},
		{"gcloud", "~/.config/gcloud/application_default_credentials.json", rd, RuleRestricted, B, 0},
		{"tilde expands", "~/.aws/config", rd, RuleRestricted, B, 0},
		{"dotdot escape", "$W/../.ssh/id_rsa", rd, RuleRestricted, B, 0},
		{"dotdot deep", "$W/src/../../.ssh/config", rd, RuleRestricted, B, 0},
		// restricted by name
		{"pem anywhere", "/tmp/x/server.pem", rd, RuleRestricted, B, 0},
		{"pem upper case", "$W/Server.PEM", rd, RuleRestricted, B, 0},
		{"env", "$W/.env", rd, RuleRestricted, B, 0},
		{"env local", "$W/.env.local", rd, RuleRestricted, B, 0},
		{"env production", "$W/.env.production", wr, RuleRestricted, B, 0},
		{"env example", "$W/.env.example", rd, "", 0, 0},
		{"env sample write", "$W/.env.sample", wr, "", 0, 0},
		{"netrc", "/opt/x/.netrc", rd, RuleRestricted, B, 0},
		{"id_rsa elsewhere", "/srv/backup/id_rsa", rd, RuleRestricted, B, 0},
		{"id_rsa pub elsewhere", "/srv/backup/id_rsa.pub", rd, "", 0, 0},
		{"ssh dir elsewhere", "/home/other/.ssh/authorized_keys", wr, RuleRestricted, B, 0},
		{"key suffix only", "/tmp/.key", rd, "", 0, 0},
		// proc and devices
		// protected
		{"bashrc read", "~/.bashrc", rd, "", 0, 0},
		{"bashrc write", "~/.bashrc", wr, RuleProtected, B, 0},
		{"bashrc append edit", "~/.bashrc", rd | wr, RuleProtected, B, 0},
		{"bashrc in workspace", "$W/dotfiles/.bashrc", wr, "", 0, 0},
		{"git config dir", "~/.config/git/config", wr, RuleProtected, B, 0},
		{"systemd user unit", "~/.config/systemd/user/x.service", wr, RuleProtected, B, 0},
		{"git hook", "$W/.git/hooks/pre-commit", wr, RuleProtected, B, 0},
		{"git config", "$W/.git/config", wr, RuleProtected, B, 0},
		{"git objects", "$W/.git/objects/ab/cd", wr, "", 0, 0},
		{"claude settings", "$W/.claude/settings.json", wr, RuleProtected, B, 0},
		{"claude local settings", "$W/sub/.claude/settings.local.json", del, RuleProtected, B, 0},
		{"user claude settings", "~/.claude/settings.json", wr, RuleProtected, B, 0},
		{"claude settings read", "$W/.claude/settings.json", rd, "", 0, 0},
		{"claude commands", "$W/.claude/commands/x.md", wr, RuleTier, verdict.Allow, 2},
		{"claude user config (mcp servers it starts)", "~/.claude.json", wr, RuleProtected, B, 0},
		{"claude user config read", "~/.claude.json", rd, "", 0, 0},
		// workspace levels
		{"parallax read", "$W/.parallax/audit.jsonl", rd, RuleSealed, B, 0},
		{"parallax dir", "$W/.parallax", rd, RuleSealed, B, 0},
		{"home parallax", "~/.parallax/policy.yaml", rd, RuleSealed, B, 0},
		{"nested parallax", "$W/sub/.parallax/x", rd, RuleSealed, B, 0},
		{"soul read", "$W/SOUL.md", rd, "", 0, 0},
		{"soul write", "$W/SOUL.md", wr, RuleReadOnly, B, 0},
		{"skills delete", "$W/skills/x/SKILL.md", del, RuleReadOnly, B, 0},
		{"agents write", "$W/AGENTS.md", wr, RuleTier, verdict.Allow, 2},
		{"heartbeat write", "$W/HEARTBEAT.md", wr, RuleTier, verdict.Allow, 2},
		{"memory write", "$W/MEMORY.md", wr, RuleTier, verdict.Allow, 1},
		{"memory dir write", "$W/memory/2024.md", wr, RuleTier, verdict.Allow, 1},
		{"user write", "$W/USER.md", wr, RuleTier, verdict.Allow, 1},
		{"memory read", "$W/memory/2024.md", rd, "", 0, 0},
		{"ordinary write", "$W/main.go", wr, "", 0, 0},
		{"ordinary new file", "$W/src/new.go", wr, "", 0, 0},
		{"outside read", "/usr/share/doc/x", rd, "", 0, 0},
		// deleting what holds protected paths
		{"delete workspace", "$W", del, RuleSealed, B, 0},
		{"delete home", "~", del, RuleSealed, B, 0},
		{"delete root", "/", del, RuleSealed, B, 0},
		{"move dotconfig", "~/.config", rd | del, RuleRestricted, B, 0},
		{"read workspace", "$W", rd, "", 0, 0},
		{"delete src", "$W/src", del, "", 0, 0},
		// symlinks (real files)
		{"link to ssh", "$W/link/id_rsa", rd, RuleRestricted, B, 0},
		{"link to ssh new file", "$W/link/newfile", wr, RuleRestricted, B, 0},
		{"link to ssh pub", "$W/link/id_ed25519.pub", rd, "", 0, 0},
		{"relative link", "$W/rel/config", rd, RuleRestricted, B, 0},
		{"link chain", "$W/chain1/id_rsa", rd, RuleRestricted, B, 0},
		{"link to key file", "$W/key", rd, RuleRestricted, B, 0},
		{"link loop", "$W/loop1/x", rd, RuleBadPath, B, 0},
		{"dangling link into ssh", "$W/dangle", wr, RuleRestricted, B, 0},
		{"link then dotdot", "$W/src/up/../.bashrc", wr, RuleProtected, B, 0},
		{"dotdot without link", "$W/src/../.bashrc", wr, "", 0, 0},
		{"link to sealed", "$W/sealed/canary.token", rd, RuleSealed, B, 0},
		// bad paths
		{"relative", "proj/main.go", rd, RuleBadPath, B, 0},
		{"empty", "", rd, RuleBadPath, B, 0},
		{"nul", "/tmp/a\x00b", rd, RuleBadPath, B, 0},
		{"newline", "/tmp/a\nb", rd, RuleBadPath, B, 0},
		{"del char", "/tmp/a\x7fb", rd, RuleBadPath, B, 0},
		{"too long", "/tmp/" + strings.Repeat("a/../", 1000), rd, RuleBadPath, B, 0},
		{"tilde user", "~root/.ssh/id_rsa", rd, RuleBadPath, B, 0},
		{"no access bits fails closed", "~/.bashrc", 0, RuleProtected, B, 0},
	}
	runCases(t, f, cases, f.g.Check)
}

func TestCheckReasons(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		path string
		acc  action.Access
		want string
	}{
		{"~/.ssh/id_rsa", rd, "reading ~/.ssh/id_rsa is blocked: SSH keys and configuration are restricted"},
		{"~/.bashrc", wr, "writing ~/.bashrc is blocked: shell startup files are protected against changes"},
		{"$W/link/x", wr, "writing ~/proj/link/x (it resolves to ~/.ssh/x) is blocked: SSH keys and configuration are restricted"},
		{"$W/MEMORY.md", wr, "writing ~/proj/MEMORY.md needs tier 1: changes to agent memory need tier 1 review"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			got, _ := f.g.Check(f.expand(c.path), c.acc)
			if got.Reason != c.want {
				t.Fatalf("got %q, want %q", got.Reason, c.want)
			}
		})
	}
}

func TestCheckResolvedPath(t *testing.T) {
	f := newFixture(t)
	got, _ := f.g.Check(f.ws+"/link/id_rsa", rd)
	if want := filepath.Join(f.home, ".ssh", "id_rsa"); got.Path != want {
		t.Fatalf("got %v, want %v", got.Path, want)
	}
}

func TestBrokenGuardBlocks(t *testing.T) {
	for _, c := range []struct{ ws, home string }{{"", "/home/u"}, {"/w", ""}, {"w", "/home/u"}, {"/w", "home"}} {
		g := New(c.ws, c.home)
		got, ok := g.Check("/tmp/x", rd)
		if !ok || got.Decision != verdict.Block || got.Rule != RuleBadPath {
			t.Fatalf("New(%q, %q): got %+v, want a bad-path block", c.ws, c.home, got)
		}
	}
}

func TestLevelString(t *testing.T) {
	for l := None; l <= Sealed+1; l++ {
		if l.String() == "" {
			t.Fatalf("got empty name for level %d", l)
		}
	}
}
