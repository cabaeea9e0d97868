package guard

import (
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

// TestHostInstructionsNeedReview: what Claude Code loads as the agent's
// instructions or runs as its extensions (memory files, rules, skills,
// sub-agents, commands, hook scripts, output styles, plugins), in the
// workspace, below it, in the home and above the workspace, can be read
// freely; writing or deleting it needs tier 2, as AGENTS.md does.
// Creating an empty directory for them puts nothing in place.
func TestHostInstructionsNeedReview(t *testing.T) {
	f := newFixture(t)
	mkdir(t, filepath.Join(f.ws, "docs"))
	write(t, filepath.Join(f.ws, "docs", "CLAUDE.md"))
	A, B := verdict.Allow, verdict.Block
	above := filepath.Join(f.root, "home", "CLAUDE.md") // a directory above the workspace
	elsewhere := filepath.Join(f.root, "srv", "app")
	cases := []checkCase{
		{"project memory write", "$W/CLAUDE.md", wr, RuleTier, A, 2},
		{"project memory delete", "$W/CLAUDE.md", del, RuleTier, A, 2},
		{"project memory read", "$W/CLAUDE.md", rd, "", 0, 0},
		{"local memory", "$W/CLAUDE.local.md", wr, RuleTier, A, 2},
		{"memory in .claude", "$W/.claude/CLAUDE.md", wr, RuleTier, A, 2},
		{"memory of a subdirectory", "$W/docs/CLAUDE.md", wr, RuleTier, A, 2},
		{"rules", "$W/.claude/rules/style.md", wr, RuleTier, A, 2},
		{"skill", "$W/.claude/skills/deploy/SKILL.md", wr, RuleTier, A, 2},
		{"skill script", "$W/.claude/skills/deploy/run.sh", wr, RuleTier, A, 2},
		{"sub-agent", "$W/.claude/agents/reviewer.md", wr, RuleTier, A, 2},
		{"command", "$W/.claude/commands/ship.md", del, RuleTier, A, 2},
		{"hook script", "$W/.claude/hooks/format.sh", wr, RuleTier, A, 2},
		{"output style", "$W/.claude/output-styles/terse.md", wr, RuleTier, A, 2},
		{"plugin", "$W/.claude/plugins/p/hooks/hooks.json", wr, RuleTier, A, 2},
		{"skill read", "$W/.claude/skills/deploy/SKILL.md", rd, "", 0, 0},
		{"nested project skill", "$W/sub/app/.claude/skills/x/SKILL.md", wr, RuleTier, A, 2},
		{"user memory", "~/.claude/CLAUDE.md", wr, RuleTier, A, 2},
		{"user skill", "~/.claude/skills/x/SKILL.md", wr, RuleTier, A, 2},
		{"user agent", "~/.claude/agents/x.md", wr, RuleTier, A, 2},
		{"user command", "~/.claude/commands/x.md", wr, RuleTier, A, 2},
		{"user rules", "~/.claude/rules/x.md", wr, RuleTier, A, 2},
		{"user plugins", "~/.claude/plugins/cache/p/plugin.json", wr, RuleTier, A, 2},
		{"memory in the home", "~/CLAUDE.md", wr, RuleTier, A, 2},
		{"memory above the workspace", above, wr, RuleTier, A, 2},
		{"memory elsewhere is a file", elsewhere + "/CLAUDE.md", wr, "", 0, 0},
		{"a project's agents elsewhere", elsewhere + "/.claude/agents/x.md", wr, RuleTier, A, 2},
		{"other files of .claude", "$W/.claude/notes.md", wr, "", 0, 0},
		{"other markdown", "$W/docs/README.md", wr, "", 0, 0},
		{"settings stay protected", "$W/.claude/settings.json", wr, RuleProtected, B, 0},
		{"the whole .claude replaced", "$W/.claude", wr, RuleProtected, B, 0},
	}
	if !foldCase {
		cases = append(cases, checkCase{"case matters where the OS compares it", "$W/claude.md", wr, "", 0, 0})
	}
	runCases(t, f, cases, f.g.Check)

	t.Run("empty directories", func(t *testing.T) {
		runCases(t, f, []checkCase{
			{"skills dir", "$W/.claude/skills", wr, "", 0, 0},
			{"a skill's dir", "$W/.claude/skills/deploy", wr, "", 0, 0},
			{"user agents dir", "~/.claude/agents", wr, "", 0, 0},
			{"a directory named like a memory file", "$W/CLAUDE.md", wr, "", 0, 0},
		}, func(p string, _ action.Access) (Finding, bool) { return f.g.CheckMkdir(p) })
	})
	t.Run("globs", func(t *testing.T) {
		runCases(t, f, []checkCase{
			{"named in a pattern", "$W/do*/CLAUDE.md", wr, RuleTier, A, 2},
			{"reached by expansion", "$W/docs/*.md", wr, RuleTier, A, 2},
			{"read through a pattern", "$W/docs/*.md", rd, "", 0, 0},
			{"skills through a pattern", "$W/.claude/skills/*/SKILL.md", wr, RuleTier, A, 2},
		}, f.g.CheckGlob)
	})
}
