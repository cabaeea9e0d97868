package shield

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// The commands in this file are test data: they are only ever evaluated
// by the gate, never run.

// TestGitCannotRestoreGateConfig: git writing a Claude Code settings
// file (from a commit, the index, a stash) is a write of it, blocked as
// any other write of it (issue 20: the unhooked committed settings came
// back with git checkout).
func TestGitCannotRestoreGateConfig(t *testing.T) {
	g := newTestGate(t, "default")
	for _, cmd := range []string{
		"git checkout HEAD -- .claude/settings.json",
		"git checkout .claude/settings.json",
		"git restore --source=HEAD~3 .claude/settings.local.json",
		"git checkout origin/main -- .claude",
		"git stash push -- .claude/settings.json",
		"git checkout-index -f -- .claude/settings.json",
		"git -C sub checkout HEAD -- .claude/settings.json",
		"cd src && git -C .. restore .claude/settings.json",
		"git -c alias.co=checkout co HEAD -- .claude/settings.json",
		"git --work-tree=/home/dev/project checkout HEAD -- .mcp.json",
	} {
		v := g.Evaluate(context.Background(), CommandRequest(cmd))
		if v.Decision != verdict.Block || v.Stage != verdict.StageGuard || v.Rule != "guard_protected" {
			t.Errorf("%s: got %v %s %s (%s), want BLOCK by guard_protected", cmd, v.Decision, v.Stage, v.Rule, v.Reason)
		}
	}
}

// TestGitTreeWritesNeedReview: a git command that writes the work tree
// from content the gate cannot see (a branch, a stash, a patch, a merge)
// is judged as a change of every path of the tree, existing or not: in a
// workspace whose tree holds the gate's state and the hooked settings, it
// needs review. This is what makes a branch switch ESCALATE under the
// default preset.
func TestGitTreeWritesNeedReview(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "project")
	for _, d := range []string{filepath.Join(ws, ".parallax"), filepath.Join(ws, ".claude"), filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"hooks":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: ws, Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"git stash", "git stash -u", "git stash pop", "git checkout .", "git checkout -- .", "git checkout main",
		"git switch main", "git switch -f main", "git reset --hard", "cd src && git reset --hard origin/main",
		"git apply fix.patch", "git am 0001.patch", "git merge feature", "git rebase main", "git cherry-pick 4f1c2ab",
		"git revert 4f1c2ab", "git pull", "git pull --rebase origin main", "git read-tree -u -m HEAD",
		"git checkout-index -a -f", "git restore -p", "git bisect start bad good",
	} {
		v := g.Evaluate(context.Background(), CommandRequest(cmd))
		if v.Decision != verdict.Escalate || v.Rule != "guard_tree" || !strings.Contains(v.Reason, "~/project") {
			t.Errorf("%s: got %v %s (%s), want ESCALATE by guard_tree naming the work tree", cmd, v.Decision, v.Rule, v.Reason)
		}
	}
	// What a checkout may create counts, not only what exists: in a
	// workspace that holds nothing yet, the tree may come to hold the
	// gate's state and the host's settings.
	empty, err := New(Config{Workspace: filepath.Join(root, "empty"), Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git switch main", "git stash pop"} {
		if v := empty.Evaluate(context.Background(), CommandRequest(cmd)); v.Decision != verdict.Escalate || v.Rule != "guard_tree" {
			t.Errorf("empty workspace, %s: got %v %s (%s), want ESCALATE by guard_tree", cmd, v.Decision, v.Rule, v.Reason)
		}
	}
	// Where the tree holds nothing protected, a pathspec there is an
	// ordinary write.
	for _, cmd := range []string{"git checkout -- src/", "git restore src/main.go", "git stash push -- src"} {
		if v := g.Evaluate(context.Background(), CommandRequest(cmd)); v.Decision != verdict.Allow {
			t.Errorf("%s: got %v %s (%s), want ALLOW", cmd, v.Decision, v.Rule, v.Reason)
		}
	}
}

// TestGitReadsStayAllowed: git that reads, or moves only HEAD and the
// index, or makes a branch at HEAD, is decided as before.
func TestGitReadsStayAllowed(t *testing.T) {
	g := newTestGate(t, "default")
	for _, cmd := range []string{
		"git status", "git diff", "git commit -m x", "git add -A", "git log -- .claude/settings.json",
		"git show HEAD:.claude/settings.json", "git diff .claude/", "git checkout -b feature", "git switch -c feature",
		"git restore --staged .claude/settings.json", "git reset HEAD~1", "git reset --soft HEAD~1", "git stash list",
		"git stash show -p", "git fetch origin main", "git log --oneline -20", "git blame src/main.go",
	} {
		if v := g.Evaluate(context.Background(), CommandRequest(cmd)); v.Decision != verdict.Allow {
			t.Errorf("%s: got %v %s (%s), want ALLOW", cmd, v.Decision, v.Rule, v.Reason)
		}
	}
}

// TestHostInstructionWrites: a skill, sub-agent or command that declares
// hooks is a hook configuration (BLOCK); Claude Code's instruction files
// otherwise need tier 2 (ESCALATE without a judge); reading them is free.
func TestHostInstructionWrites(t *testing.T) {
	g := newTestGate(t, "default")
	write := func(p, content string) string {
		b, _ := json.Marshal(map[string]string{"path": p, "content": content}) // strings always marshal
		return string(b)
	}
	hooked := "---\nname: x\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: ./x.sh}]\n---\nDo x.\n"
	for _, c := range []struct {
		name, typ, payload string
		want               verdict.Decision
		rule               string
	}{
		{"skill with hooks", "write_file", write(testWS+"/.claude/skills/x/SKILL.md", hooked), verdict.Block, "host_hook_config"},
		{"user agent with hooks", "write_file", write(testHome+"/.claude/agents/a.md", hooked), verdict.Block, "host_hook_config"},
		{"plain skill", "write_file", write(testWS+"/.claude/skills/x/SKILL.md", "---\nname: x\n---\nDo x.\n"), verdict.Escalate, "guard_tier"},
		{"command", "write_file", write(testWS+"/.claude/commands/c.md", "Review the diff.\n"), verdict.Escalate, "guard_tier"},
		{"project memory", "write_file", write(testWS+"/CLAUDE.md", "Use tabs.\n"), verdict.Escalate, "guard_tier"},
		{"user memory", "write_file", write(testHome+"/.claude/CLAUDE.md", "Use tabs.\n"), verdict.Escalate, ""}, // outside the workspace as well
		{"skill by the shell", "execute_command", cmdPayload("printf 'x' > .claude/skills/x/SKILL.md"), verdict.Escalate, "guard_tier"},
		{"skill read", "read_file", `{"path":"` + testWS + `/.claude/skills/x/SKILL.md"}`, verdict.Allow, ""},
		{"skill dir made", "execute_command", cmdPayload("mkdir -p .claude/skills/x"), verdict.Allow, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := eval(g, c.typ, c.payload)
			if v.Decision != c.want || c.rule != "" && v.Rule != c.rule {
				t.Errorf("got %v %s (%s), want %v %s", v.Decision, v.Rule, v.Reason, c.want, c.rule)
			}
		})
	}
}
