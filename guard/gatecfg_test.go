package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// TestGateConfigProtected: the files that put Parallax in front of an
// agent (Claude Code's settings, MCP client configurations) can be read
// but not written, deleted, moved away with a parent, or replaced with a
// whole directory; the other files beside them stay ordinary.
func TestGateConfigProtected(t *testing.T) {
	f := newFixture(t)
	mkdir(t, filepath.Join(f.ws, ".claude", "commands"))
	write(t, filepath.Join(f.ws, ".claude", "settings.json"))
	B := verdict.Block
	runCases(t, f, []checkCase{
		{"project settings read", "$W/.claude/settings.json", rd, "", 0, 0},
		{"project settings write", "$W/.claude/settings.json", wr, RuleProtected, B, 0},
		{"project settings delete", "$W/.claude/settings.json", del, RuleProtected, B, 0},
		{"local settings write (missing)", "$W/.claude/settings.local.json", wr, RuleProtected, B, 0},
		{"dotdot spelling", "$W/src/../.claude/settings.json", wr, RuleProtected, B, 0},
		{"claude dir delete", "$W/.claude", del, RuleProtected, B, 0},
		{"claude dir replaced", "$W/.claude", wr, RuleProtected, B, 0},
		{"claude dir read", "$W/.claude", rd, "", 0, 0},
		{"commands write", "$W/.claude/commands/x.md", wr, RuleTier, verdict.Allow, 2},
		{"commands dir write", "$W/.claude/commands", wr, RuleTier, verdict.Allow, 2},
		{"other files of .claude", "$W/.claude/notes.txt", wr, "", 0, 0},
		{"nested project settings", "$W/sub/app/.claude/settings.json", wr, RuleProtected, B, 0},
		{"nested project local settings", "$W/sub/.claude/settings.local.json", del, RuleProtected, B, 0},
		{"user settings write", "~/.claude/settings.json", wr, RuleProtected, B, 0},
		{"user settings read", "~/.claude/settings.json", rd, "", 0, 0},
		{"user claude dir delete", "~/.claude", del, RuleProtected, B, 0},
		{"user claude dir replaced", "~/.claude", wr, RuleProtected, B, 0},
		{"user agents", "~/.claude/agents/x.md", wr, RuleTier, verdict.Allow, 2},
		{"claude.json", "~/.claude.json", wr, RuleProtected, B, 0},
		{"mcp.json", "$W/.mcp.json", wr, RuleProtected, B, 0},
		{"mcp.json read", "$W/.mcp.json", rd, "", 0, 0},
		{"cursor project", "$W/.cursor/mcp.json", del, RuleProtected, B, 0},
		{"cursor user", "~/.cursor/mcp.json", wr, RuleProtected, B, 0},
		{"vscode", "$W/.vscode/mcp.json", wr, RuleProtected, B, 0},
		{"vscode settings", "$W/.vscode/settings.json", wr, "", 0, 0},
		{"windsurf", "~/.codeium/windsurf/mcp_config.json", wr, RuleProtected, B, 0},
		{"claude desktop linux", "~/.config/Claude/claude_desktop_config.json", wr, RuleProtected, B, 0},
		{"claude desktop mac", "~/Library/Application Support/Claude/claude_desktop_config.json", wr, RuleProtected, B, 0},
		{"claude desktop dir replaced", "~/.config/Claude", wr, RuleProtected, B, 0},
		{"workspace root write is not a config dir", "$W", wr, "", 0, 0},
		{"home write is not a config dir", "~/notes", wr, "", 0, 0},
	}, f.g.Check)
}

// TestGateConfigThroughLink: a link to the settings file is judged where
// it lands.
func TestGateConfigThroughLink(t *testing.T) {
	f := newFixture(t)
	mkdir(t, filepath.Join(f.ws, ".claude"))
	write(t, filepath.Join(f.ws, ".claude", "settings.json"))
	if err := os.Symlink(filepath.Join(f.ws, ".claude"), filepath.Join(f.ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	g := New(f.ws, f.home)
	got, ok := g.Check(filepath.Join(f.ws, "cfg", "settings.json"), wr)
	if !ok || got.Rule != RuleProtected {
		t.Errorf("got %+v %v, want %s", got, ok, RuleProtected)
	}
}

// TestWithProtected: a settings file named at install time is protected
// like the built-in ones, its directory too; bad paths fail closed.
func TestWithProtected(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.root, "etc-claude", "team.json")
	mkdir(t, filepath.Dir(other))
	write(t, other)
	g := New(f.ws, f.home, WithProtected(other))
	for _, c := range []struct {
		name string
		path string
		acc  action.Access
		want string
	}{
		{"write", other, wr, RuleProtected},
		{"delete", other, del, RuleProtected},
		{"read", other, rd, ""},
		{"its directory deleted", filepath.Dir(other), del, RuleProtected},
		{"its directory replaced", filepath.Dir(other), wr, RuleProtected},
		{"a sibling", filepath.Join(filepath.Dir(other), "x.json"), wr, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := g.Check(c.path, c.acc)
			if c.want == "" && ok || c.want != "" && (!ok || got.Rule != c.want || got.Decision != verdict.Block) {
				t.Errorf("got %+v %v, want %q", got, ok, c.want)
			}
		})
	}
	if got, ok := New(f.ws, f.home).Check(other, wr); ok {
		t.Errorf("without WithProtected: got %+v, want nothing", got)
	}
	for _, bad := range []string{"relative/settings.json", "/a/../b.json", "/", ""} {
		got, ok := New(f.ws, f.home, WithProtected(bad)).Check(filepath.Join(f.ws, "main.go"), rd)
		if !ok || got.Rule != RuleBadPath {
			t.Errorf("WithProtected(%q): got %+v, want every check blocked", bad, got)
		}
	}
}

// TestGateConfigMkdir: creating an empty agent configuration directory
// where nothing exists (or finding one there) puts no configuration in
// place; a link or a file at the path, or a ".." spelling, keeps the
// whole-directory rule, and every other rule still applies.
func TestGateConfigMkdir(t *testing.T) {
	f := newFixture(t)
	mkdir(t, filepath.Join(f.home, ".claude"))
	evil := filepath.Join(f.root, "evil")
	mkdir(t, evil)
	for link, target := range map[string]string{
		filepath.Join(f.ws, ".cursor"): evil,
		filepath.Join(f.ws, "home"):    f.home,
		filepath.Join(f.ws, "keys"):    filepath.Join(f.home, ".ssh"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(f.root, "nowhere"), filepath.Join(f.ws, ".vscode")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.home, ".codeium"))
	B := verdict.Block
	cases := []checkCase{
		{"new project claude dir", "$W/.claude", wr, "", 0, 0},
		{"new project claude dir, trailing slash", "$W/.claude/", wr, "", 0, 0},
		{"new commands dir", "$W/.claude/commands", wr, "", 0, 0},
		{"existing user claude dir", "~/.claude", wr, "", 0, 0},
		{"new user config parent", "~/.config/Claude", wr, "", 0, 0},
		{"existing ~/.config", "~/.config", wr, "", 0, 0},
		{"new cursor dir", "~/.cursor", wr, "", 0, 0},
		{"through a link to the home", "$W/home/.cursor", wr, "", 0, 0},
		{"link at the path", "$W/.cursor", wr, RuleProtected, B, 0},
		{"dangling link at the path", "$W/.vscode", wr, RuleProtected, B, 0},
		{"file at the path", "~/.codeium", wr, RuleProtected, B, 0},
		{"dotdot spelling", "$W/src/../.claude", wr, RuleProtected, B, 0},
		{"settings file itself", "$W/.claude/settings.json", wr, RuleProtected, B, 0},
		{"sealed state", "$W/.parallax/x", wr, RuleSealed, B, 0},
		{"through a link to keys", "$W/keys/new", wr, RuleRestricted, B, 0},
		{"skills", "$W/skills/new", wr, RuleReadOnly, B, 0},
	}
	runCases(t, f, cases, func(p string, _ action.Access) (Finding, bool) { return f.g.CheckMkdir(p) })
	// The same paths written as content stay blocked: the exception is
	// for creation only.
	for _, p := range []string{"$W/.claude", "~/.claude", "~/.config", "~/.cursor", "$W/home/.cursor"} {
		if got, ok := f.g.Check(f.expand(p), wr); !ok || got.Rule != RuleProtected {
			t.Errorf("write %s: got %+v %v, want %s", p, got, ok, RuleProtected)
		}
	}
}
