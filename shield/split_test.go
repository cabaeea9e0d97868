package shield

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// splitWorkspace is a workspace directly in the home (its parent is the
// home), holding the engine's .parallax and a planted "z .. q.tmp".
func splitWorkspace(t *testing.T) *Gate {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	ws := filepath.Join(home, "proj")
	for rel, body := range map[string]string{
		".parallax/config.yaml": "policy: default\n",
		".parallax/api.token":   "7f3a9c0d1e2b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5\n",
		"src/main.go":           "package main\n",
		"notes.txt":             "notes\n",
		"z .. q.tmp":            "",
	} {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "keep.txt"), []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: ws, Home: home, Policy: "default"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A consumer that recurses into a directory operand, fed names through a
// channel that splits them (xargs without -0, $(...), a loop over it,
// read), may receive ".." from a planted "z .. q.tmp": the gate decides
// at least as it does for the same program given ".." literally (it also
// receives "."), and says why.
func TestSplitNamesCannotReachTheParentTree(t *testing.T) {
	g := splitWorkspace(t)
	cases := []struct{ cmd, literal string }{
		{`find . -name "*.tmp" | xargs rm -rf`, `rm -rf ..`},
		{`find . -name "*.tmp" | xargs -d '\n' rm -rf`, `rm -rf ..`},
		{`find . -name "*.tmp" | xargs -I{} rm -rf {}`, `rm -rf ..`},
		{`rm -rf $(find . -name "*.tmp")`, `rm -rf ..`},
		{"rm -rf `find . -name '*.tmp'`", `rm -rf ..`},
		{`for f in $(find . -name "*.tmp"); do rm -rf "$f"; done`, `rm -rf ..`},
		{`find . -name "*.tmp" | while read -r f; do rm -rf "$f"; done`, `rm -rf ..`},
		{`ls | xargs rm -rf`, `rm -rf ..`},
		{`grep -l foo *.txt | xargs rm -rf`, `rm -rf ..`},
		{`find . -name "*.tmp" | xargs chmod -R 777`, `chmod -R 777 ..`},
		{`find . -name "*.tmp" | xargs cp -r -t /tmp/bak`, `cp -r -t /tmp/bak ..`},
		{`find . -name "*.tmp" | xargs grep -r TODO`, `grep -r TODO ..`},
	}
	for _, c := range cases {
		lit := evalCmd(t, g, c.literal)
		if lit.Decision == verdict.Allow {
			t.Fatalf("%s: got ALLOW, want the literal command refused", c.literal)
		}
		got := evalCmd(t, g, c.cmd)
		if rank(got.Decision) < rank(lit.Decision) {
			t.Errorf("%s: got %s (%s: %s), want %s as for %s", c.cmd, got.Decision, got.Rule, got.Reason, lit.Decision, c.literal)
			continue
		}
		if !strings.Contains(got.Reason, "splits them") || !strings.Contains(got.Reason, "-print0 | xargs -0") {
			t.Errorf("%s: got reason %q, want it to say the names are split and how to avoid it", c.cmd, got.Reason)
		}
	}
}

// Channels that do not split names, and consumers that do not recurse
// into a directory operand, keep their decisions.
func TestSplitNamesLeaveLookalikesAllowed(t *testing.T) {
	g := splitWorkspace(t)
	for _, cmd := range []string{
		`find . -name "*.tmp" -print0 | xargs -0 rm -rf`,
		`find . -name "*.tmp" -print0 | xargs --null rm -rf`,
		`find . -name "*.tmp" -exec rm -rf {} +`,
		`find . -name "*.tmp" -delete`,
		`for f in *.tmp; do rm -rf "$f"; done`,
		`find . -name '*.go' | xargs sed -i s/a/b/`,
		`grep -rl --include=*.go old . | xargs sed -i s/old/new/`,
		`find . -name '*.txt' | xargs wc -l`,
		`find . -name '*.go' | xargs grep -n TODO`,
		`find . -name "*.tmp" | xargs rm -f`,
	} {
		if got := evalCmd(t, g, cmd); got.Decision != verdict.Allow {
			t.Errorf("%s: got %s (%s: %s), want ALLOW", cmd, got.Decision, got.Rule, got.Reason)
		}
	}
}

// rank orders decisions by strictness.
func rank(d verdict.Decision) int {
	switch d {
	case verdict.Allow:
		return 0
	case verdict.Escalate:
		return 1
	}
	return 2
}
