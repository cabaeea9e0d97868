package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testCommand = "/opt/parallax/bin/parallax hook claude-code"

// existingSettings is a settings file with the user's own entries,
// including another PreToolUse hook and keys this package knows nothing
// about, in a deliberate (non-alphabetical) order.
const existingSettings = `{
  "model": "sonnet",
  "permissions": {"allow": ["Bash(go test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/lint-hook", "timeout": 5}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "env": {"FOO": "bar"},
  "apiKeyHelper": "/bin/key"
}
`

func TestInstallUninstall(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	writeFile(t, path, existingSettings)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	changed, err := Install(path, testCommand)
	if err != nil || !changed {
		t.Fatalf("install: changed %v, err %v", changed, err)
	}
	after := readFile(t, path)
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(after), &s); err != nil {
		t.Fatalf("installed file is not JSON: %v\n%s", err, after)
	}
	// Every event that carries something to the model is registered:
	// the tool events, and the memory files and prompts.
	for _, ev := range []string{EventPreToolUse, EventPostToolUse, EventPostToolUseFailure,
		EventPreSkillShellCommand, EventSessionStart, EventInstructionsLoaded, EventDirectoryAdded,
		EventUserPromptSubmit, EventUserPromptExpansion} {
		groups := s.Hooks[ev]
		if len(groups) == 0 {
			t.Fatalf("%s: no hook registered", ev)
		}
		last := groups[len(groups)-1]
		if last.Matcher != "*" || len(last.Hooks) != 1 || last.Hooks[0].Command != testCommand || last.Hooks[0].Type != "command" {
			t.Errorf("%s: got %+v, want the Parallax hook last", ev, groups)
		}
	}
	if len(s.Hooks[EventPreToolUse]) != 2 || s.Hooks[EventPreToolUse][0].Hooks[0].Command != "/usr/local/bin/lint-hook" {
		t.Errorf("the user's PreToolUse hook must stay first: %+v", s.Hooks[EventPreToolUse])
	}
	order := []string{`"model"`, `"permissions"`, `"hooks"`, `"PreToolUse"`, `"Stop"`, `"PostToolUse"`, `"env"`, `"apiKeyHelper"`}
	last := -1
	for _, k := range order {
		i := strings.Index(after, k)
		if i <= last {
			t.Errorf("key %s out of order in\n%s", k, after)
		}
		last = i
	}
	if !strings.Contains(after, `"timeout": 5`) {
		t.Errorf("the user's hook lost its timeout:\n%s", after)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode: got %v, want 0640", st.Mode().Perm())
	}

	changed, err = Install(path, testCommand)
	if err != nil || changed || readFile(t, path) != after {
		t.Errorf("second install: changed %v, err %v; it must be a no-op", changed, err)
	}

	changed, err = Uninstall(path)
	if err != nil || !changed {
		t.Fatalf("uninstall: changed %v, err %v", changed, err)
	}
	var want, got any
	_ = json.Unmarshal([]byte(existingSettings), &want)
	if err := json.Unmarshal([]byte(readFile(t, path)), &got); err != nil {
		t.Fatal(err)
	}
	if wb, gb := mustJSON(t, want), mustJSON(t, got); wb != gb {
		t.Errorf("uninstall must restore the original settings:\ngot  %s\nwant %s", gb, wb)
	}
	if changed, err := Uninstall(path); err != nil || changed {
		t.Errorf("second uninstall: changed %v, err %v; it must be a no-op", changed, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".settings-parallax-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallNewFileAndSharedGroup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	if _, err := Install(path, testCommand); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new settings file: %v %v, want mode 0600", st, err)
	}
	// The user adds their own hook to the group install created: uninstall
	// removes only the Parallax command and keeps the group with theirs.
	b := strings.Replace(readFile(t, path), `"command": "`+testCommand+`"`,
		`"command": "`+testCommand+`"}, {"type": "command", "command": "mine"`, 1)
	writeFile(t, path, b)
	if _, err := Uninstall(path); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if strings.Contains(got, testCommand) || !strings.Contains(got, `"mine"`) || strings.Contains(got, EventPostToolUse) {
		t.Errorf("got\n%s\nwant only the user's hook left under PreToolUse", got)
	}
	if _, err := Uninstall(path); err != nil {
		t.Fatal(err)
	}
	if changed, err := Uninstall(filepath.Join(dir, "missing.json")); err != nil || changed {
		t.Errorf("uninstall from a missing file: changed %v, err %v", changed, err)
	}
}

func TestInstallThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude.json")
	writeFile(t, real, `{"model":"opus"}`)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(link, testCommand); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the settings symlink was replaced: %v %v", st, err)
	}
	if !strings.Contains(readFile(t, real), testCommand) {
		t.Errorf("the link's target was not updated")
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"not json", `{"model": `, "invalid JSON"},
		{"array", `[]`, "not a JSON object"},
		{"hooks not object", `{"hooks": []}`, `"hooks"`},
		{"event not array", `{"hooks": {"PreToolUse": {}}}`, "not an array"},
		{"duplicate key", `{"a": 1, "a": 2}`, "appears twice"},
		{"trailing", `{} {}`, "trailing data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, c.content)
			_, err := Install(path, testCommand)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
			if got := readFile(t, path); got != c.content {
				t.Errorf("a refused install changed the file: %q", got)
			}
		})
	}
}

func TestHookCommandQuotes(t *testing.T) {
	for _, c := range []struct{ bin, want string }{
		{"/usr/local/bin/parallax", "/usr/local/bin/parallax hook claude-code"},
		{"/Users/Jo Doe/bin/parallax", "'/Users/Jo Doe/bin/parallax' hook claude-code"},
		{"/opt/it's/parallax", `'/opt/it'\''s/parallax' hook claude-code`},
	} {
		if got := HookCommand(c.bin); got != c.want {
			t.Errorf("HookCommand(%q): got %q, want %q", c.bin, got, c.want)
		}
	}
}

// TestInstallReplacesOtherBinaries: a second install with another binary
// leaves exactly one Parallax entry per event (the new one), also
// removing an old entry under an event install no longer uses;
// uninstall removes every Parallax entry, whatever its binary, and
// nothing of the user's.
func TestInstallReplacesOtherBinaries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	old := `{"hooks": {
  "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/parallax hook claude-code"},
    {"type": "command", "command": "/usr/local/bin/lint-hook"}]}],
  "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "'/my tools/parallax' hook claude-code"}]}],
  "PostToolBatch": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/parallax hook claude-code"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "parallax-notes hook claude-codes"}]}]
}}`
	writeFile(t, path, old)
	if changed, err := Install(path, testCommand); err != nil || !changed {
		t.Fatalf("install: changed %v, err %v", changed, err)
	}
	got := readFile(t, path)
	for _, gone := range []string{"/old/parallax", "/my tools/parallax", EventPostToolBatch} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	if n := strings.Count(got, testCommand); n != len(Events()) {
		t.Errorf("%d entries of the new binary, want %d:\n%s", n, len(Events()), got)
	}
	for _, kept := range []string{"/usr/local/bin/lint-hook", "parallax-notes hook claude-codes"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the user's %q is gone:\n%s", kept, got)
		}
	}
	if changed, err := Install(path, testCommand); err != nil || changed {
		t.Errorf("second install: changed %v, err %v; want no change", changed, err)
	}
	// Entries added by hand with yet another binary: uninstall takes them too.
	writeFile(t, path, strings.Replace(readFile(t, path), `"/usr/local/bin/lint-hook"`,
		`"/usr/local/bin/lint-hook"}, {"type": "command", "command": "/tmp/x/parallax   hook claude-code"`, 1))
	if changed, err := Uninstall(path); err != nil || !changed {
		t.Fatalf("uninstall: changed %v, err %v", changed, err)
	}
	got = readFile(t, path)
	if strings.Contains(got, "hook claude-code\"") || !strings.Contains(got, "lint-hook") || !strings.Contains(got, "claude-codes") {
		t.Errorf("after uninstall:\n%s\nwant every Parallax entry gone, the user's kept", got)
	}
}

func TestIsHookCommand(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"/usr/local/bin/parallax hook claude-code", true},
		{"'/a b/parallax' hook claude-code", true},
		{"parallax hook claude-code", true},
		{"  /x/p   hook   claude-code  ", true},
		{"hook claude-code", false},
		{"/x/parallax hook claude-codes", false},
		{"/x/parallax hook claude-code --debug", false},
		{"/usr/local/bin/lint-hook", false},
	} {
		if got := IsHookCommand(c.cmd); got != c.want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", c.cmd, got, c.want)
		}
	}
}

// TestHasHook: a Parallax entry under any event, whatever its binary, is
// found; other hooks are not; a missing file holds none; a broken file is
// an error; the file is never changed.
func TestHasHook(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, content string
		want, err     bool
	}{
		{"installed", `{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "'/x y/parallax' hook claude-code"}]}]}}`, true, false},
		{"other hooks only", existingSettings, false, false},
		{"no hooks", `{"model": "sonnet"}`, false, false},
		{"empty", "", false, false},
		{"broken", `{"hooks": [`, false, true},
		{"missing", "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			if c.name != "missing" {
				writeFile(t, path, c.content)
			}
			got, err := HasHook(path)
			if got != c.want || (err != nil) != c.err {
				t.Errorf("got %v %v, want %v (error %v)", got, err, c.want, c.err)
			}
			if c.name == "missing" {
				if _, err := os.Stat(path); err == nil {
					t.Errorf("HasHook created the missing file")
				}
			} else if b := readFile(t, path); b != c.content {
				t.Errorf("the file changed: %q", b)
			}
		})
	}
}

// Every entry Install writes names its timeout, well above the hook's own
// deadline (after which it denies), so Claude Code never gives up on the
// hook first and runs the tool unchecked; an entry of an earlier install
// without one is replaced, not kept beside the new one.
func TestInstallWritesTheTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "`+testCommand+`"}]}]}}`)
	if changed, err := Install(path, testCommand); err != nil || !changed {
		t.Fatalf("install: changed %v, err %v", changed, err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil {
		t.Fatal(err)
	}
	for _, ev := range Events() {
		var n int
		for _, g := range s.Hooks[ev] {
			for _, h := range g.Hooks {
				if h.Command != testCommand {
					continue
				}
				n++
				if h.Timeout != HookTimeoutSeconds || HookTimeoutSeconds < 45 {
					t.Errorf("%s: timeout %d, want %d (above the hook's 30 s deadline)", ev, h.Timeout, HookTimeoutSeconds)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d Parallax entries, want 1", ev, n)
		}
	}
	if changed, err := Install(path, testCommand); err != nil || changed {
		t.Errorf("a second install: changed %v, err %v; want no change", changed, err)
	}
}
