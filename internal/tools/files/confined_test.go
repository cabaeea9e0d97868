//go:build linux

package files

import (
	"bytes"
	"encoding/gob"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ConfinedArg { // the test binary as the confined helper
		os.Exit(ConfinedMain(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// confinedSelf is the test binary as the helper, or a skip where the
// kernel cannot confine it.
func confinedSelf(t *testing.T) string {
	t.Helper()
	if err := sandbox.Support().Usable(); err != nil {
		t.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// The helper acts only on a request whose confinement is its plan's: a
// request that asks for the home to be readable, or a directory to be
// changed, while its plan reads one workspace file is refused before
// anything is read.
func TestConfinedHelperRefusesASpecWiderThanItsPlan(t *testing.T) {
	self := confinedSelf(t)
	ws, home := t.TempDir(), t.TempDir()
	f := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(f, []byte("secret-a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	act := &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}
	plan, err := Prepare(act)
	if err != nil {
		t.Fatal(err)
	}
	registerPayloads()
	for _, spec := range []sandbox.FilesSpec{
		{Read: []string{f, home}},
		{Read: []string{home}},
		{Read: []string{f}, Modify: []string{ws}},
		{Read: []string{f}}, // the control: the plan's own
	} {
		var in bytes.Buffer
		if err := gob.NewEncoder(&in).Encode(&confinedRequest{Spec: spec, Action: act, Plan: plan}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, ConfinedArg)
		cmd.Stdin = &in
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("spec %+v: %v", spec, err)
		}
		var ans confinedAnswer
		if err := gob.NewDecoder(bytes.NewReader(out)).Decode(&ans); err != nil {
			t.Fatal(err)
		}
		control := len(spec.Read) == 1 && spec.Read[0] == f && len(spec.Modify) == 0
		switch {
		case control && (ans.Err != "" || !ans.Confined || ans.Result.Output != "secret-a\n"):
			t.Errorf("the plan's own spec: %+v", ans)
		case !control && (ans.Code != tools.CodeSandbox || strings.Contains(ans.Result.Output, "secret-a")):
			t.Errorf("spec %+v: %+v, want sandbox_refused and nothing read", spec, ans)
		}
	}
}

// Names and contents that are not UTF-8 cross the helper's pipes byte
// for byte: a file named with invalid bytes is written, listed and read
// back exactly.
func TestConfinedHelperKeepsBytes(t *testing.T) {
	self := confinedSelf(t)
	ws := t.TempDir()
	name := filepath.Join(ws, "bad\xff\xfe.txt")
	content := "caf\xe9 \xff\n"
	c := &Confined{Self: self}
	run := func(act *action.Action) tools.Result {
		t.Helper()
		plan, err := Prepare(act)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Execute(t.Context(), tools.Call{Action: act, Plan: plan})
		if err != nil {
			t.Fatalf("%s: %v", act.Type, err)
		}
		return res
	}
	run(&action.Action{Type: action.WriteFile, Payload: &action.WriteFilePayload{Path: name, Content: content}})
	if b, err := os.ReadFile(name); err != nil || string(b) != content {
		t.Fatalf("on disk: %q, %v", b, err)
	}
	if res := run(&action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: name}}); !strings.Contains(res.Output, content) {
		t.Errorf("read back: %q", res.Output)
	}
}
