package shield

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// internalsWorkspace is a workspace on disk whose .parallax holds what
// the engine writes there, with known token values.
func internalsWorkspace(t *testing.T) (ws, home string) {
	t.Helper()
	root := t.TempDir()
	ws, home = filepath.Join(root, "proj"), filepath.Join(root, "home")
	files := map[string]string{
		"proj/.parallax/config.yaml":                     "policy: default\n",
		"proj/.parallax/policy.yaml":                     "deny: []\n",
		"proj/.parallax/api.token":                       "7f3a9c0d1e2b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5\n",
		"proj/.parallax/canary.token":                    "c4n4ry0000111122223333444455556666777788889999aaaabbbbccccddddee\n",
		"proj/.parallax/audit.jsonl":                     `{"v":1,"seq":1,"reason":"reading ~/.ssh/id_rsa is blocked"}` + "\n",
		"proj/.parallax/backups/parallax-1/client.token": "0ld70k3n\n",
		"proj/src/main.go":                               "package main // TODO: tidy\n",
		"home/.keep":                                     "",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ws, home
}

// internalsCase is a command and what it gets through the hook, the MCP
// proxy and the API (internals visible) and through the own agent
// (hidden).
type internalsCase struct {
	cmd             string
	visible, hidden verdict.Decision
}

// judgeBothWays judges each case with .parallax visible and hidden in
// the workspace internalsWorkspace builds.
func judgeBothWays(t *testing.T, cases []internalsCase) {
	t.Helper()
	ws, home := internalsWorkspace(t)
	visible, err := New(Config{Workspace: ws, Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := New(Config{Workspace: ws, Home: home, Policy: "default", InternalsHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := evalCmd(t, visible, c.cmd); got.Decision != c.visible {
			t.Errorf("internals visible: %s: got %s (%s: %s), want %s", c.cmd, got.Decision, got.Rule, got.Reason, c.visible)
		}
		if got := evalCmd(t, hidden, c.cmd); got.Decision != c.hidden {
			t.Errorf("internals hidden: %s: got %s (%s: %s), want %s", c.cmd, got.Decision, got.Rule, got.Reason, c.hidden)
		}
	}
}

func evalCmd(t *testing.T, g *Gate, cmd string) verdict.Verdict {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return g.Fresh().Evaluate(context.Background(), Request{Session: "s", Type: "execute_command", Payload: b})
}

// Through the hook, the MCP proxy, the HTTP API and shield evaluate an
// ALLOW runs with the user's rights: a command whose targets are found at
// run time must not reach the workspace's .parallax. The own agent's
// engine (InternalsHidden) keeps its decisions: its sandbox hides it.
func TestRunTimePathsCannotReachSealedFiles(t *testing.T) {
	cases := []internalsCase{ // hidden: the own agent's sandbox hides .parallax, so a recursive change does not reach it
		// Writes reaching .parallax.
		{"find . -name config.yaml -exec sed -i 's/a/b/' {} +", verdict.Block, verdict.Allow},
		{"sed -i 's/a/b/' $(find . -name config.yaml)", verdict.Block, verdict.Allow},
		{"find . -name '*.yaml' | xargs perl -pi -e 's/deny/allow/'", verdict.Block, verdict.Block}, // secrets.yaml
		{"find . -type f -exec chmod 644 {} +", verdict.Block, verdict.Allow},                       // hidden: the sandbox hides .parallax
		{"find . -name policy.yaml -delete", verdict.Block, verdict.Allow},
		// Reads aimed at credentials or records by name.
		{"grep -rH . --include=*.token .", verdict.Block, verdict.Allow},
		{"find . -name '*.token' -exec cat {} \\;", verdict.Block, verdict.Allow},
		{"find . -name 'canary*' | xargs cat", verdict.Block, verdict.Block}, // canary.pem
		{"rg --hidden -g '*.token' . .", verdict.Block, verdict.Allow},
		{"grep -r --include=*.jsonl id_rsa .", verdict.Block, verdict.Allow},
		// Unfiltered searches: the pattern is tested against the files.
		{"grep -r . .", verdict.Block, verdict.Allow},
		{"grep -rn 7f3a9c0d .", verdict.Block, verdict.Allow},
		{"grep -rn 'c4n4ry[0-9]*' .", verdict.Block, verdict.Allow},
		{"grep -rnv zzz .", verdict.Block, verdict.Allow},
		{"grep -rn id_rsa .", verdict.Escalate, verdict.Allow}, // the audit chain's line
		{"grep -rn 'a(b' .", verdict.Allow, verdict.Allow},
		{"grep -rn '\\(x\\)\\1' .", verdict.Escalate, verdict.Allow}, // a back reference: not evaluated
		// Readers that show whole files.
		{"cat $(find . -type f)", verdict.Escalate, verdict.Allow},
		{"tar cf - . | tar xOf - ./.parallax/canary.token", verdict.Escalate, verdict.Allow},
		// Look-alikes a developer types: nothing of .parallax shown or changed.
		{"find . -name '*.go' -exec gofmt -w {} +", verdict.Allow, verdict.Allow},
		{"grep -rn TODO --include=*.go .", verdict.Allow, verdict.Allow},
		{"grep -rn TODO .", verdict.Allow, verdict.Allow},
		{"find . -type f -name '*.pyc' -delete", verdict.Allow, verdict.Allow},
		{"grep -r --exclude-dir=.parallax 7f3a9c0d .", verdict.Allow, verdict.Allow},
		{"rg 7f3a9c0d .", verdict.Allow, verdict.Allow},                                                              // rg skips hidden directories
		{"find . -name '*.md' -not -path './.parallax/*' -exec sed -i s/a/b/ {} +", verdict.Escalate, verdict.Allow}, // checkTree's review where .parallax is not hidden
		{"find . -path ./.parallax -prune -o -name '*.md' -exec sed -i s/a/b/ {} +", verdict.Escalate, verdict.Allow},
		{"find . -maxdepth 1 -name '*.txt' -exec rm {} +", verdict.Allow, verdict.Allow},
	}
	judgeBothWays(t, cases)
}

// A list a listing command prints (grep -l/-L, rg -l/--files, fd, git
// ls-files PATHSPEC, find -print) carries what that command selects to
// the consumer fed on it (xargs, $(…), for, while read): a consumer of
// the Go files grep lists does not reach .parallax, one of every file or
// of the names aimed at the engine's files does.
func TestListConsumersCannotReachSealedFiles(t *testing.T) {
	cases := []internalsCase{
		// Look-alikes: the list holds only what its filters select.
		{"grep -rl --include='*.go' 'old/pkg' . | xargs -r sed -i 's#old/pkg#new/pkg#g'", verdict.Allow, verdict.Allow},
		{"rg -l foo -g '*.ts' | xargs sed -i s/foo/bar/", verdict.Allow, verdict.Allow},
		{"find . -name '*.py' -print0 | xargs -0 black", verdict.Allow, verdict.Allow},
		{"sed -i s/a/b/ $(grep -rl --include=*.txt a .)", verdict.Allow, verdict.Allow},
		{"for f in $(grep -rl --include='*.go' foo .); do sed -i s/foo/bar/ \"$f\"; done", verdict.Allow, verdict.Allow},
		{"grep -rl --include='*.go' foo . | while read -r f; do sed -i s/foo/bar/ \"$f\"; done", verdict.Allow, verdict.Allow},
		{"grep -rl --include='*.go' foo . | xargs -I{} sed -i s/foo/bar/ {}", verdict.Allow, verdict.Allow},
		{"git ls-files '*.go' | xargs sed -i s/a/b/", verdict.Allow, verdict.Allow},
		{"fd -e py | xargs black", verdict.Allow, verdict.Allow},
		{"grep -rl --exclude-dir=.parallax foo . | xargs cat", verdict.Allow, verdict.Allow},
		{"rg -l foo | xargs cat", verdict.Allow, verdict.Allow}, // rg skips hidden directories
		{"rg -l foo | while read -r f; do wc -l \"$f\"; done", verdict.Allow, verdict.Allow},
		// Lists that hold the engine's files.
		{"grep -rl . . | xargs sed -i s/a/b/", verdict.Block, verdict.Allow},
		{"grep -rl foo . | while read -r f; do sed -i s/foo/bar/ \"$f\"; done", verdict.Block, verdict.Allow},
		{"grep -rl --include='*.yaml' policy . | xargs sed -i 's/BLOCK/ALLOW/'", verdict.Block, verdict.Block}, // secrets.yaml
		{"grep -rl --include=config.yaml policy . | xargs sed -i 's/BLOCK/ALLOW/'", verdict.Block, verdict.Allow},
		{"grep -rl --include='*.go' --include=config.yaml policy . | xargs sed -i s/a/b/", verdict.Block, verdict.Allow},
		{"find . -name '*.token' | xargs cat", verdict.Block, verdict.Allow},
		{"rg -l --hidden -g '*.token' . | xargs cat", verdict.Block, verdict.Allow},
		{"fd -H token | xargs cat", verdict.Block, verdict.Allow},
		{"git ls-files -o '*.token' | xargs cat", verdict.Block, verdict.Allow},
		{"grep -rL --include='*.token' zzz . | xargs cat", verdict.Block, verdict.Allow},
		{"grep -l foo $(find . -name '*.token') | xargs cat", verdict.Block, verdict.Allow},
	}
	judgeBothWays(t, cases)
}

// The Claude Code Grep tool (search_files, run by the host) must not
// print the tokens; the Glob tool (a glob that is no regexp) lists names.
// The engine's own executor skips sealed entries (WalksJudged).
func TestSearchToolCannotPrintWorkspaceTokens(t *testing.T) {
	ws, home := internalsWorkspace(t)
	hook, err := New(Config{Workspace: ws, Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := New(Config{Workspace: ws, Home: home, Policy: "default", WalksJudged: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pattern      string
		hook, engine verdict.Decision
	}{
		{".", verdict.Block, verdict.Allow},
		{"[0-9a-f]{64}", verdict.Block, verdict.Allow},
		{"C4N4RY", verdict.Block, verdict.Allow}, // case is not known: folded
		{"TODO", verdict.Allow, verdict.Allow},
		{"**/*.token", verdict.Allow, verdict.Allow},
	}
	for _, c := range cases {
		b, _ := json.Marshal(map[string]string{"path": ws, "pattern": c.pattern})
		r := Request{Session: "s", Type: "search_files", Payload: b}
		if got := hook.Fresh().Evaluate(context.Background(), r); got.Decision != c.hook {
			t.Errorf("hook: search %q: got %s (%s: %s), want %s", c.pattern, got.Decision, got.Rule, got.Reason, c.hook)
		}
		if got := engine.Fresh().Evaluate(context.Background(), r); got.Decision != c.engine {
			t.Errorf("engine: search %q: got %s (%s), want %s", c.pattern, got.Decision, got.Reason, c.engine)
		}
	}
}

// TestLongHistoryDoesNotStopRecursiveCommands: a workspace whose
// chronicle holds more snapshot objects than the listing's bound (a
// workspace used for weeks through the hook) gets the same decisions as a
// fresh one: the objects stand for themselves by their shape, so a
// recursive read or a name-narrowed write is not escalated for the bound,
// and a write that reaches them is still refused.
func TestLongHistoryDoesNotStopRecursiveCommands(t *testing.T) {
	ws, home := internalsWorkspace(t)
	objs := filepath.Join(ws, ".parallax", "chronicle", "objects")
	for i := 0; i < 5000; i++ {
		h := fmt.Sprintf("%064x", i*7919+1)
		p := filepath.Join(objs, h[:2], h[2:])
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g, err := New(Config{Workspace: ws, Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]verdict.Decision{
		"grep -rn TODO --include=*.go .":          verdict.Allow,
		"find . -name '*.go' -exec gofmt -w {} +": verdict.Allow,
		"find . -type f -exec chmod 600 {} +":     verdict.Block,
	} {
		if v := evalCmd(t, g, cmd); v.Decision != want {
			t.Errorf("%s: got %v %s (%s), want %v", cmd, v.Decision, v.Rule, v.Reason, want)
		}
	}
}
