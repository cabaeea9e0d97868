package guard

import (
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// TestTreeWriteReachesWhatDoesNotExistYet: a change of any path below a
// root (git checking out a commit, a stash, a patch) may create what is
// not there yet, so every protected entry below the root counts, where a
// find-style recursive change (CheckGlob) counts only what exists.
func TestTreeWriteReachesWhatDoesNotExistYet(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", "u")
	ws := filepath.Join(home, "proj")
	mkdir(t, filepath.Join(ws, "src"))
	g := New(ws, home)
	if f, ok := g.CheckGlob(ws+"/**", wr); ok {
		t.Errorf("find-style change of an empty workspace: got %+v, want nothing", f)
	}
	f, ok := g.CheckTreeWrite(ws+"/**", wr)
	if !ok || f.Rule != RuleTree || f.Decision != verdict.Escalate || f.Level != Sealed {
		t.Errorf("tree write of an empty workspace: got %+v %v, want %s/ESCALATE naming .parallax", f, ok, RuleTree)
	}
	if f, ok := g.CheckTreeWrite(ws+"/src/**", wr); ok {
		t.Errorf("tree write of src: got %+v, want nothing", f)
	}
}

// TestCheckTreeWrite: the root is checked as written, the tables' entries
// below it need review, other patterns are judged as globs.
func TestCheckTreeWrite(t *testing.T) {
	f := newFixture(t)
	B, E, A := verdict.Block, verdict.Escalate, verdict.Allow
	runCases(t, f, []checkCase{
		{"workspace", "$W/**", wr, RuleTree, E, 0},
		{"workspace delete", "$W/**", del, RuleTree, E, 0},
		{"a source directory", "$W/src/**", wr, "", 0, 0},
		{"a missing directory", "$W/docs/**", wr, "", 0, 0},
		{"a file", "$W/main.go/**", wr, "", 0, 0},
		{"settings file", "$W/.claude/settings.json/**", wr, RuleProtected, B, 0},
		{"settings directory", "$W/.claude/**", wr, RuleProtected, B, 0},
		{"skills directory", "$W/.claude/skills/**", wr, RuleTier, A, 2},
		{"memory", "$W/memory/**", wr, RuleTier, A, 1},
		{"identity file", "$W/SOUL.md/**", wr, RuleReadOnly, B, 0},
		{"sealed", "$W/.parallax/**", wr, RuleSealed, B, 0},
		{"git hooks", "$W/.git/hooks/**", wr, RuleProtected, B, 0},
		{"through a link to keys", "$W/link/**", wr, RuleRestricted, B, 0},
		{"home", "~/**", wr, RuleTree, E, 0},
		{"root", "/**", wr, RuleTree, E, 0},
		{"not a tree: judged as a glob", "$W/S*.md", wr, RuleReadOnly, B, 0},
		{"relative", "proj/**", wr, RuleBadPath, B, 0},
	}, f.g.CheckTreeWrite)
}

// TestTreeWriteLeavesWhatTheExecutorGuards: where the executor hides
// .parallax and keeps the host-trusted files read-only (the own agent's
// sandbox), a change of the whole work tree is judged by what it could
// still reach: the agent's identity and instruction files, not .parallax.
func TestTreeWriteLeavesWhatTheExecutorGuards(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", "u")
	ws := filepath.Join(home, "proj")
	mkdir(t, filepath.Join(ws, ".parallax"))
	mkdir(t, filepath.Join(ws, ".claude"))
	f, ok := New(ws, home, WithInternalsHidden()).CheckTreeWrite(ws+"/**", wr)
	if !ok || f.Rule != RuleTree || f.Decision != verdict.Escalate || f.Level == Sealed || f.Level == Protected {
		t.Errorf("hidden: got %+v %v, want %s/ESCALATE for an identity or instruction file", f, ok, RuleTree)
	}
	if f, ok := New(ws, home).CheckTreeWrite(ws+"/**", wr); !ok || f.Level != Sealed {
		t.Errorf("visible: got %+v %v, want .parallax named", f, ok)
	}
}
