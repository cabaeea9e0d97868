package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
)

// chainEntries lists "Type code rule" of the entries of ws's chain.
func chainEntries(t *testing.T, ws string) []string {
	t.Helper()
	var got []string
	err := audit.Scan(audit.DefaultPath(ws), audit.Filter{}, func(e audit.Entry) error {
		got = append(got, strings.TrimSpace(string(e.Type)+" "+e.Detail.Code+" "+e.Rule))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestPolicyAddNoCondition: a rule without a condition is refused (it
// would be a deny-all), as the loader refuses it; --type '*' is the way
// to say "every action".
func TestPolicyAddNoCondition(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"deny without condition", []string{"--name", "x", "--section", "deny"}, "has no condition"},
		{"allow without condition", []string{"--name", "x", "--section", "allow", "--reason", "r"}, "has no condition"},
		{"explicit every action", []string{"--name", "x", "--section", "deny", "--type", "*"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := policyEnv(t)
			out, err := runPolicy(t, append([]string{"add", "--workspace", ws}, tt.args...)...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want success\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
			if _, serr := os.Stat(filepath.Join(ws, ".parallax", "policy.yaml")); serr == nil {
				t.Error("the refused rule was written")
			}
		})
	}
}

// TestPolicyEditsAudited: add and remove each leave a ConfigChanged entry
// naming the rule and the file's hashes; a chain that cannot record the
// change leaves the file as it was.
func TestPolicyEditsAudited(t *testing.T) {
	ws := policyEnv(t)
	file := filepath.Join(ws, ".parallax", "policy.yaml")
	if out, err := runPolicy(t, "add", "--workspace", ws, "--name", "no_prod", "--section", "deny", "--path", "/srv/prod/**"); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if out, err := runPolicy(t, "add", "--workspace", ws, "--name", "keep", "--section", "deny", "--path", "/srv/keep/**"); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	if out, err := runPolicy(t, "remove", "--workspace", ws, "no_prod"); err != nil {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	want := "ConfigChanged policy_rule_added no_prod,ConfigChanged policy_rule_added keep,ConfigChanged policy_rule_removed no_prod"
	if got := strings.Join(chainEntries(t, ws), ","); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var refs, msgs []string
	_ = audit.Scan(audit.DefaultPath(ws), audit.Filter{}, func(e audit.Entry) error {
		refs, msgs = append(refs, e.Detail.Ref), append(msgs, e.Detail.Message)
		return nil
	})
	if len(refs) != 3 || !strings.HasPrefix(refs[0], "sha256:") ||
		!strings.Contains(msgs[0], "before none after "+refs[0]) ||
		!strings.Contains(msgs[2], "before "+refs[1]+" after "+refs[2]) {
		t.Errorf("hashes: got refs %q messages %q, want the file's hashes before and after", refs, msgs)
	}
	if out, err := runParallax(t, "", "audit", "--verify", "--workspace", ws); err != nil {
		t.Fatalf("chain does not verify: %v\n%s", err, out)
	}

	before, _ := os.ReadFile(file)
	if err := os.Truncate(audit.DefaultPath(ws), 5); err != nil { // a torn chain refuses appends
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"add", "--workspace", ws, "--name", "other", "--section", "deny", "--path", "/srv/**"},
		{"remove", "--workspace", ws, "keep"},
	} {
		_, err := runPolicy(t, args...)
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%v: got %v, want a refusal", args[0], err)
		}
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("policy file changed although the chain could not record it:\n%s", after)
	}
}

// TestChroniclePruneAudited: a prune is a ConfigChanged entry; a chain that
// cannot record it stops the prune before anything is deleted.
func TestChroniclePruneAudited(t *testing.T) {
	ws := chronicleWorkspace(t)
	if out, err := runChronicle(t, "", "prune", "--keep", "1", "--workspace", ws); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, want := strings.Join(chainEntries(t, ws), ","), "ConfigChanged chronicle_pruned"; !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want it to end with %q", got, want)
	}
	ws = chronicleWorkspace(t)
	if err := os.WriteFile(audit.DefaultPath(ws), []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runChronicle(t, "", "prune", "--keep", "1", "--workspace", ws)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("got %v, want a refusal\n%s", err, out)
	}
	if out, _ := runChronicle(t, "", "--workspace", ws); !strings.Contains(out, "notes.txt") {
		t.Errorf("snapshots were pruned although the chain could not record it:\n%s", out)
	}
}
