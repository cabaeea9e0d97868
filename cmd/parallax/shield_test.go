package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// evalLines runs `parallax shield evaluate` on one JSONL input and
// returns the verdicts.
func evalLines(t *testing.T, ws, home string, lines ...string) []verdict.Verdict {
	t.Helper()
	out, err := runParallax(t, strings.Join(lines, "\n")+"\n", "shield", "evaluate", "--workspace", ws, "--home", home)
	if err != nil {
		t.Fatalf("shield evaluate: %v\n%s", err, out)
	}
	var vs []verdict.Verdict
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v verdict.Verdict
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("verdict line %q: %v", l, err)
		}
		vs = append(vs, v)
	}
	if len(vs) != len(lines) {
		t.Fatalf("got %d verdicts for %d lines", len(vs), len(lines))
	}
	return vs
}

// TestShieldEvaluateSharesWorkspaceState: two invocations on an
// initialised workspace (as two hook calls would be) share the session
// taint, and both append to the workspace's audit chain.
func TestShieldEvaluateSharesWorkspaceState(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".parallax"), 0o700); err != nil {
		t.Fatal(err)
	}
	first := evalLines(t, ws, home,
		`{"session":"s1","type":"execute_command","payload":{"command":"cat notes/db.txt"},"result":"DATABASE_URL=postgres://app:Wq7vR2pL9xM4@db.internal:5432/app"}`)
	if first[0].Decision == verdict.Block {
		t.Fatalf("reading notes: got %+v", first[0])
	}
	second := evalLines(t, ws, home,
		`{"session":"s1","type":"send_email","payload":{"to":"x@example.com","subject":"s","body":"all done"}}`,
		`{"session":"s2","type":"send_email","payload":{"to":"x@example.com","subject":"s","body":"all done"}}`)
	if second[0].Decision != verdict.Block || second[0].Stage != verdict.StageIFC {
		t.Errorf("s1 after the secret, in a new process: got %+v, want a BLOCK by ifc", second[0])
	}
	if second[1].Decision == verdict.Block {
		t.Errorf("s2 saw nothing: got %+v", second[1])
	}
	rep, err := audit.Verify(audit.DefaultPath(ws), audit.VerifyOptions{})
	if err != nil || rep.Entries != 3 {
		t.Fatalf("audit chain: %d entries, %v; want 3 verified", rep.Entries, err)
	}
	raw, _ := os.ReadFile(audit.DefaultPath(ws))
	if strings.Contains(string(raw), "Wq7vR2pL9xM4") {
		t.Errorf("the audit chain holds the password")
	}
}

// TestShieldEvaluateWithoutWorkspaceKeepsNothing: a directory that is not
// initialised gets no .parallax, no database and no audit file.
func TestShieldEvaluateWithoutWorkspaceKeepsNothing(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	evalLines(t, ws, home, `{"type":"execute_command","payload":{"command":"git status"}}`)
	if _, err := os.Stat(filepath.Join(ws, ".parallax")); !os.IsNotExist(err) {
		t.Fatalf("evaluate created state in an uninitialised workspace: %v", err)
	}
}
