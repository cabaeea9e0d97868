package claudehook

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// gitWriters are git commands that put back the committed
// .claude/settings.json, taking out a hook installed since the commit.
var gitWriters = []string{
	"git checkout HEAD -- .claude/settings.json",
	"git stash",
	"git checkout .",
	"git reset --hard",
}

// committedSettings is the settings file as committed: no hook.
const committedSettings = "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n"

// TestGitCannotRevertTheHookSettings: the project is a git repository
// whose committed .claude/settings.json has no hook; the hook is installed
// since, uncommitted. Each git command that writes the work tree back
// (one per session) must be refused, and the settings on disk still hold
// the Parallax hook after each. The gate denies the checkout of the file
// (guard_protected) and asks about the writes of the whole tree
// (guard_tree): in -p mode there is no one to ask, and the CLI refuses
// the call (a permission denial) as it does a deny. The control (a
// do-nothing hook) shows each command does put the committed file back.
func TestGitCannotRevertTheHookSettings(t *testing.T) {
	t.Run("parallax", func(t *testing.T) {
		e := newEnvWith(t, hookParallax, nil, gitProject)
		installed := e.read(".claude/settings.json")
		if has, err := claudecode.HasHook(e.path(".claude/settings.json")); err != nil || !has {
			t.Fatalf("the installed settings hold no Parallax hook (%v):\n%s", err, installed)
		}
		for i, command := range gitWriters {
			id := fmt.Sprintf("toolu_git_%d", i)
			_, session := e.run(bash(id, command))
			if got := e.read(".claude/settings.json"); got != installed {
				t.Errorf("after %q the settings are\n%s\nwant\n%s", command, got, installed)
				e.write(".claude/settings.json", installed) // for the next command's own check
			}
			if r := e.result(id); !r.IsError || !strings.Contains(r.Text, "Parallax") {
				t.Errorf("%q: tool_result = %+v; want Parallax's deny or ask", command, r)
			}
			entries := e.audit(session)
			if !hasEntry(entries, func(a auditEntry) bool {
				return a.Action == "execute_command" && (a.Decision == "BLOCK" || a.Decision == "ESCALATE")
			}) || hasEntry(entries, func(a auditEntry) bool { return a.Action == "execute_command" && a.Decision == "ALLOW" }) {
				t.Errorf("%q: the gate's decision was not a deny or an ask: %+v", command, entries)
			}
		}
	})
	t.Run("control", func(t *testing.T) {
		e := newEnvWith(t, hookTrue, nil, gitProject)
		installed := e.read(".claude/settings.json")
		for i, command := range gitWriters {
			id := fmt.Sprintf("toolu_git_%d", i)
			e.run(bash(id, command))
			if r := e.result(id); r.IsError {
				t.Errorf("without Parallax %q should run; tool_result = %+v", command, r)
			}
			if got := e.read(".claude/settings.json"); got != committedSettings {
				t.Errorf("without Parallax %q should put back the committed settings; they are\n%s", command, got)
			}
			e.write(".claude/settings.json", installed)
		}
	})
}

// gitProject makes the project a git repository whose one commit holds
// committedSettings, with an identity in HOME's git config (git stash
// commits).
func gitProject(e *env) {
	e.t.Helper()
	e.write("~/.gitconfig", "[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n")
	e.write(".claude/settings.json", committedSettings)
	e.write("README.md", "# project\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.project
		cmd.Env = []string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			e.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
