package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/policy"
)

// runCmd runs a command built by a constructor (init and doctor are not
// registered in groups.go by this change) with stdin; it returns stdout
// and stderr apart.
func runInitDoctorCmd(t *testing.T, cmd *cobra.Command, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func noTTY(io.Reader) bool     { return false }
func ttyAlways(io.Reader) bool { return true }

func TestInitCmd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home) // init adds the workspace to ~/.parallax/workspaces
	root := filepath.Join(t.TempDir(), "project")
	out, _, err := runInitDoctorCmd(t, initCommand(noTTY), "", root, "--policy", "strict")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"initialised " + root + " (policy preset strict)", ".parallax/api.token",
		"audit chain, anchor 1:sha256:", "next: parallax doctor --workspace " + root} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Every command's sandbox hides the state of the workspaces listed here.
	if roots, err := pxworkspace.Registered(home); err != nil || len(roots) != 1 || roots[0] != root {
		t.Errorf("registered workspaces: %q, %v; want [%s]", roots, err, root)
	}
	for _, p := range []string{pxworkspace.CanaryPath(root), pxworkspace.APITokenPath(root)} {
		tok, err := pxworkspace.ReadToken(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, tok) {
			t.Errorf("the output shows the token of %s", p)
		}
	}
	if cfg, err := pxworkspace.LoadConfig(root); err != nil || cfg.Policy != "strict" {
		t.Errorf("config: got %+v %v", cfg, err)
	}

	_, _, err = runInitDoctorCmd(t, initCommand(noTTY), "", root)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "already holds a workspace") ||
		!strings.Contains(err.Error(), "--force") {
		t.Fatalf("second init: got %v, want exit 1 naming --force", err)
	}

	out, _, err = runInitDoctorCmd(t, initCommand(noTTY), "", root, "--force")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "moved, unchanged, to .parallax/backups/parallax-") {
		t.Errorf("--force output lacks the backup:\n%s", out)
	}
	if cfg, _ := pxworkspace.LoadConfig(root); cfg.Policy != "default" {
		t.Errorf("--force without --policy: got %q, want default", cfg.Policy)
	}
}

func TestInitCmdInteractive(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // init adds the workspace to ~/.parallax/workspaces
	tests := []struct {
		name, stdin string
		args        []string
		want        string
		prompted    bool
	}{
		{"terminal, number", "2\n", nil, "permissive", true},
		{"terminal, enter", "\n", nil, "default", true},
		{"terminal, flag wins", "2\n", []string{"--policy", "strict"}, "strict", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			_, prompt, err := runInitDoctorCmd(t, initCommand(ttyAlways), tc.stdin, append([]string{root}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(prompt, "Policy preset for this workspace"); got != tc.prompted {
				t.Errorf("prompted: got %v, want %v (%q)", got, tc.prompted, prompt)
			}
			if cfg, _ := pxworkspace.LoadConfig(root); cfg.Policy != tc.want {
				t.Errorf("policy: got %q, want %q", cfg.Policy, tc.want)
			}
		})
	}
	t.Run("terminal, no answer", func(t *testing.T) {
		root := t.TempDir()
		if _, _, err := runInitDoctorCmd(t, initCommand(ttyAlways), "", root); err == nil || !strings.Contains(err.Error(), "no preset chosen") {
			t.Fatalf("got %v, want no preset chosen", err)
		}
		if pxworkspace.Initialised(root) {
			t.Error("an unanswered prompt created a workspace")
		}
	})
}

func TestPromptPolicy(t *testing.T) {
	tests := []struct {
		in, want, err string
		asks          int
	}{
		{"\n", "default", "", 1},
		{"1\n", "default", "", 1},
		{"3\n", "strict", "", 1},
		{"  Permissive \n", "permissive", "", 1},
		{"strict", "strict", "", 1}, // no newline before EOF
		{"yolo\n4\nstrict\n", "strict", "", 3},
		{"yolo\n\n", "default", "", 2},
		{"a\nb\nc\nstrict\n", "", "after three answers", 3},
		{"", "", "no preset chosen", 1},
		{"yolo\n", "", "no preset chosen", 2},
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.in, "\n", `\n`), func(t *testing.T) {
			var out bytes.Buffer
			got, err := promptPolicy(strings.NewReader(tc.in), &out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q %v, want error %q", got, err, tc.err)
				}
			} else if err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
			if n := strings.Count(out.String(), "Choose 1-3"); n != tc.asks {
				t.Errorf("asked %d times, want %d", n, tc.asks)
			}
			for _, c := range presetChoices {
				if !strings.Contains(out.String(), c.name+" ") || !policy.IsPreset(c.name) {
					t.Errorf("prompt lacks preset %s", c.name)
				}
			}
		})
	}
}

// TestInitPolicyFileTakesRules: the policy.yaml init writes is what
// `parallax policy add` edits; the header survives and the result loads.
func TestInitPolicyFileTakesRules(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	if _, _, err := runInitDoctorCmd(t, initCommand(noTTY), "", root); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runInitDoctorCmd(t, newPolicyCmd(), "", "add", "--workspace", root, "--name", "no_prod",
		"--section", "deny", "--path", "/srv/prod/**", "--reason", "production data"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pxworkspace.PolicyPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# User rules of this workspace") || !strings.Contains(string(b), "name: no_prod") {
		t.Errorf("policy.yaml after policy add:\n%s", b)
	}
	out, _, err := runInitDoctorCmd(t, doctorCommand(func() []pxworkspace.Check { return nil }), "", "--workspace", root)
	if err != nil || !strings.Contains(out, "lint clean") {
		t.Errorf("doctor after policy add: %v\n%s", err, out)
	}
}

// FuzzPromptPolicy: any typed input ends in a preset or an error, never
// a panic or a name that is not a preset.
func FuzzPromptPolicy(f *testing.F) {
	for _, s := range []string{"", "\n", "2\n", "strict", "x\ny\nz\n", "0\n-1\n99\n", "\x00\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := promptPolicy(strings.NewReader(in), io.Discard)
		if err == nil && !policy.IsPreset(got) {
			t.Fatalf("%q: got %q, not a preset", in, got)
		}
	})
}
