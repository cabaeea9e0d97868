package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

func fakeDoctorSandbox() []pxworkspace.Check {
	return []pxworkspace.Check{{Name: "landlock", Status: pxworkspace.StatusWarn, Detail: "not available: test",
		Fix: "use another kernel"}}
}

func initialisedForDoctor(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home) // no user policy of the machine's user
	if _, err := pxworkspace.Init(context.Background(), root, pxworkspace.InitOptions{Home: home}); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestDoctorCmd(t *testing.T) {
	root := initialisedForDoctor(t)
	out, _, err := runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "", "--workspace", root)
	if err != nil {
		t.Fatalf("fresh workspace: %v\n%s", err, out)
	}
	for _, want := range []string{"workspace " + root, "OK    workspace ", "OK    audit         1 entry verified",
		"OK    policy ", "WARN  landlock      not available: test", "fix: use another kernel",
		"13 ok, 2 warning(s), 0 failed, 0 skipped", "OK    commands      each command isolated"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, _, err = runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "", "--workspace", root, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Workspace string
		OK        bool
		Checks    []pxworkspace.Check
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if !rep.OK || rep.Workspace != root || len(rep.Checks) != 15 || rep.Checks[14].Name != "landlock" {
		t.Errorf("--json: got %+v", rep)
	}
}

func TestDoctorCmdFails(t *testing.T) {
	root := initialisedForDoctor(t)
	if err := os.WriteFile(audit.DefaultPath(root), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pxworkspace.APITokenPath(root), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "", "--workspace", root)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "2 check(s) failed") {
		t.Fatalf("got %v, want exit 1 with 2 failures\n%s", err, out)
	}
	for _, want := range []string{"FAIL  audit ", "FAIL  api.token     ", "mode 0644", "fix: run: chmod 600"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	empty := t.TempDir()
	out, _, err = runInitDoctorCmd(t, doctorCommand(fakeDoctorSandbox), "", "--workspace", empty)
	if err == nil || !strings.Contains(out, "fix: run: parallax init "+empty) {
		t.Errorf("no workspace: got %v\n%s", err, out)
	}
}

// TestDoctorCmdThisKernel runs the real probes: whatever this kernel
// supports, a fresh workspace passes (sandbox gaps are warnings).
func TestDoctorCmdThisKernel(t *testing.T) {
	root := initialisedForDoctor(t)
	out, _, err := runInitDoctorCmd(t, newDoctorCmd(), "", "--workspace", root, "--no-session") // the sandboxed run needs the real binary: TestDoctorRunsACommandInTheSandbox
	if err != nil {
		t.Fatalf("got %v\n%s", err, out)
	}
	t.Log("\n" + out)
}
