package engine

import (
	"strings"
	"testing"
)

// TestHostTrustedRefusalSaysWhy: a command refused a change to a
// host-trusted file is told it was Parallax, which file, and what to do
// instead; other failures are not.
func TestHostTrustedRefusalSaysWhy(t *testing.T) {
	cases := []struct {
		name string
		res  Result
		file string // "" : no hint
	}{
		{"git config", Result{ExitCode: 4, Output: "error: could not write config file .git/config: Device or resource busy\n"}, ".git/config"},
		{"git remote add", Result{ExitCode: 128, Output: "error: could not write config file .git/config: Device or resource busy\n" +
			"fatal: could not set 'remote.origin.url' to 'http://127.0.0.1:1/app.git'\n"}, ".git/config"},
		{"a hook", Result{ExitCode: 1, Output: "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system\n"}, ".git/hooks"},
		{"git push -u", Result{ExitCode: 0, Output: "To http://127.0.0.1:1/app.git\n * [new branch]      main -> main\n" +
			"error: could not write config file .git/config: Device or resource busy\n"}, ".git/config"},
		{"another file", Result{ExitCode: 1, Output: "cp: cannot create regular file '/etc/x': Permission denied\n"}, ""},
		{"a test that mentions .git/config", Result{ExitCode: 1, Output: "--- FAIL: TestParse (.git/config fixture)\n"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := hostTrustedHint(&tc.res)
			switch {
			case tc.file == "" && got != "":
				t.Errorf("got a hint %q, want none", got)
			case tc.file != "" && (!strings.Contains(got, "Parallax's sandbox keeps "+tc.file+" read-only") || !strings.Contains(got, "git -c user.name")):
				t.Errorf("got %q, want the file and what to do instead", got)
			}
		})
	}
}
