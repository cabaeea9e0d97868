package shield

import (
	"reflect"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// fastGuardCases are written by hand from what each command does, not
// from what the gate answers: fast says whether the compiled-in safe list
// may decide it, want is the decision DESIGN §4 asks for. A word of a
// fast-path command that names a file the guard protects (id_rsa, .env,
// the sealed .parallax) sends it to the full analysis.
var fastGuardCases = []struct {
	cmd  string
	fast bool
	want verdict.Decision
}{
	{"git status", true, verdict.Allow},
	{"git show HEAD:README.md", true, verdict.Allow},
	{"git show HEAD", true, verdict.Allow},
	{"git show HEAD~1", false, verdict.Allow}, // ~ is shell syntax: never on the fast path
	{"git blame main.go", true, verdict.Allow},
	{"git log -n 5 main.go", true, verdict.Allow},
	{"go test ./...", true, verdict.Allow},
	{"go vet ./shield/...", true, verdict.Allow},
	{"git show HEAD:.env", false, verdict.Block},
	{"git show HEAD:id_rsa", false, verdict.Block},
	{"git show main:id_ed25519", false, verdict.Block},
	{"git blame id_rsa", false, verdict.Block},
	{"git log -p id_rsa", false, verdict.Block},
	{"git diff HEAD id_ecdsa", false, verdict.Block},
	{"git add id_rsa", false, verdict.Block},
	{"git show HEAD:.parallax", false, verdict.Block},
}

func TestFastPathConsultsGuard(t *testing.T) {
	g := newTestGate(t, "default")
	for _, tc := range fastGuardCases {
		t.Run(tc.cmd, func(t *testing.T) {
			v := eval(g, "execute_command", cmdPayload(tc.cmd))
			if fast := v.Stage == verdict.StageFastPath; fast != tc.fast {
				t.Errorf("fast path %v, want %v (%s: %s)", fast, tc.fast, v.Rule, v.Reason)
			}
			if v.Decision != tc.want {
				t.Errorf("got %v, want %v (%s: %s)", v.Decision, tc.want, v.Rule, v.Reason)
			}
		})
	}
}

func TestFastPathNames(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string
	}{
		{"git status", []string{"status"}},
		{"git show HEAD:.env", []string{"show", "HEAD:.env", ".env"}},
		{"git cat-file -p :0:id_rsa", []string{"cat-file", ":0:id_rsa", "id_rsa"}},
		{"git show :id_rsa", []string{"show", ":id_rsa", "id_rsa"}},
		{"git show HEAD:", []string{"show", "HEAD:"}},
		{"go test ./... ./shield/...", []string{"test", "./shield"}},
		{"git log --oneline -n 5", []string{"log", "5"}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			if got := fastPathNames(tc.cmd); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
