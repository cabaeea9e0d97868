package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runPolicy runs `parallax policy ARGS` in-process.
func runPolicy(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runParallax(t, "", append([]string{"policy"}, args...)...)
}

func policyEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	ws := filepath.Join(home, "project")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestPolicyAddListRemove(t *testing.T) {
	ws := policyEnv(t)
	out, err := runPolicy(t, "add", "--workspace", ws, "--name", "no_prod", "--section", "deny",
		"--path", "/srv/prod/**", "--reason", "production data")
	if err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	file := filepath.Join(ws, ".parallax", "policy.yaml")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", st.Mode().Perm())
	}
	if dst, _ := os.Stat(filepath.Dir(file)); dst.Mode().Perm() != 0o700 {
		t.Errorf("got dir mode %v, want 0700", dst.Mode().Perm())
	}
	if _, err := runPolicy(t, "add", "--workspace", ws, "--name", "vendor", "--section", "verify",
		"--type", "http_request", "--domain", "api.vendor.test", "--tier", "1"); err != nil {
		t.Fatalf("add verify: %v", err)
	}

	// Refusals: duplicates (user and preset), bad values (linted before saving).
	for _, args := range [][]string{
		{"--name", "no_prod", "--section", "deny", "--path", "/x"},
		{"--name", "credential_files", "--section", "deny", "--path", "/x"},
		{"--name", "bad", "--section", "deny", "--type", "raed_file"},
		{"--name", "bad", "--section", "verify", "--type", "send_email"},
		{"--name", "bad", "--section", "block", "--type", "send_email"},
		{"--name", "bad", "--section", "deny", "--path", "relative/x"},
	} {
		if out, err := runPolicy(t, append([]string{"add", "--workspace", ws}, args...)...); err == nil {
			t.Errorf("add %v: got nil error\n%s", args, out)
		}
	}

	out, err = runPolicy(t, "list", "--workspace", ws)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	for _, want := range []string{"credential_files", "preset:default:", "no_prod", file + ":", "verify tier 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}

	out, err = runPolicy(t, "explain", "--workspace", ws, `{"type":"read_file","payload":{"path":"/srv/prod/db.sqlite"}}`)
	if err != nil || !strings.Contains(out, `by rule "no_prod"`) {
		t.Errorf("explain with user rule: %v\n%s", err, out)
	}

	if _, err := runPolicy(t, "remove", "--workspace", ws, "no_prod"); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := runPolicy(t, "remove", "--workspace", ws, "no_prod"); err == nil {
		t.Errorf("remove twice: got nil error")
	}
	if _, err := runPolicy(t, "remove", "--workspace", ws, "credential_files"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("remove preset rule: got %v, want read-only error", err)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "no_prod") || !strings.Contains(string(data), "vendor") {
		t.Errorf("file after remove:\n%s", data)
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 3 { // policy.yaml, audit.jsonl, audit.head
		t.Errorf("temp files left behind: %v", ents)
	}
}

func TestPolicyLint(t *testing.T) {
	ws := policyEnv(t)
	good := filepath.Join(ws, "good.yaml")
	bad := filepath.Join(ws, "bad.yaml")
	writeFile(t, good, "deny:\n  - {name: a, paths: [\"$WORKSPACE/secret/**\"]}\nallow:\n  - {name: b, paths: [\"$WORKSPACE/secret/**\"]}\n")
	writeFile(t, bad, "deny:\n  - name: a\n    action_types: [read_file]\n    colour: red\n")

	out, err := runPolicy(t, "lint", "--workspace", ws, good, "strict")
	if err != nil {
		t.Fatalf("lint good: %v\n%s", err, out)
	}
	if !strings.Contains(out, "ok: "+good+" (2 rules)") || !strings.Contains(out, "warning: unreachable") || !strings.Contains(out, "ok: strict") {
		t.Errorf("lint output:\n%s", out)
	}
	out, err = runPolicy(t, "lint", "--workspace", ws, good, bad)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("lint bad: got %v, want exit 1", err)
	}
	if want := bad + `:4: rule "a": unknown key "colour"`; !strings.Contains(out, want) {
		t.Errorf("lint output lacks %q:\n%s", want, out)
	}
}

func TestPolicyExplainAndTest(t *testing.T) {
	ws := policyEnv(t)
	out, err := runPolicy(t, "explain", "--workspace", ws, "--policy", "strict",
		`{"type":"delete_file","payload":{"path":"~/project/a.txt"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "decision: deny") || !strings.Contains(out, `=> no_deletions`) {
		t.Errorf("explain output:\n%s", out)
	}
	if _, err := runPolicy(t, "explain", `{"type":"read_file","payload":{"path":"x"},"extra":1}`); err == nil {
		t.Errorf("explain with unknown field: got nil error")
	}
	if _, err := runPolicy(t, "explain", `{"type":"no_such","payload":{}}`); err == nil {
		t.Errorf("explain with unknown type: got nil error")
	}

	cases := filepath.Join(ws, "cases.yaml")
	writeFile(t, cases, `policy: default
workspace: /home/dev/project
home: /home/dev
cases:
  - name: netrc
    action: {type: read_file, payload: {path: ~/.netrc}}
    expect: deny
  - name: wrong on purpose
    action: {type: read_file, payload: {path: /home/dev/project/a}}
    expect: deny
`)
	out, err = runPolicy(t, "test", cases)
	if err == nil || !strings.Contains(out, "PASS netrc") || !strings.Contains(out, "FAIL "+cases+":8: wrong on purpose: got allow, want deny") {
		t.Errorf("test: %v\n%s", err, out)
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
