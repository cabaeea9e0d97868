package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestShieldBench runs the bench command on three commands: one routine,
// one blocked, one escalated (and a blank line, skipped). The counts come
// from real verdicts, and the stall line reports a measured rate.
func TestShieldBench(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cmds")
	if err := os.WriteFile(f, []byte("ls -la\ncat ~/.ssh/id_rsa\n\nsudo ls /var/log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runParallax(t, "", "shield", "bench", f, "--home", "/home/dev", "--workspace", "/home/dev/project", "--stalls", "20ms")
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	count := func(label string) int {
		m := regexp.MustCompile(`(?m)^` + label + ` +(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s line in:\n%s", label, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if count("commands") != 3 || count("ALLOW") != 1 || count("BLOCK") != 1 || count("ESCALATE") != 1 {
		t.Fatalf("want 3 commands, one of each decision:\n%s", out)
	}
	if !regexp.MustCompile(`machine stalls .* >= 20 us \d+ times/s, >= 50 us \d+ times/s \(measured for 20ms`).MatchString(out) {
		t.Fatalf("no stall rates:\n%s", out)
	}
}
