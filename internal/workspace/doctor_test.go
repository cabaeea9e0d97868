package workspace

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
)

func noSandbox() []Check { return nil }

const home = "/home/dev"

func freshWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(context.Background(), root, fixedOpts("default")); err != nil {
		t.Fatal(err)
	}
	return root
}

func runDoctor(t *testing.T, root string) Report {
	t.Helper()
	return Doctor(context.Background(), root, DoctorOptions{Home: home, Sandbox: noSandbox})
}

func find(rep Report, name string) Check {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{Name: name, Status: "absent"}
}

// TestDoctorFresh: a fresh workspace passes every check, in the
// documented order, and Doctor changes nothing.
func TestDoctorFresh(t *testing.T) {
	root := freshWorkspace(t)
	before := tree(t, root)
	rep := runDoctor(t, root)
	var got []string
	for _, c := range rep.Checks {
		got = append(got, c.Name)
		if c.Name == "judge" {
			if c.Status != StatusWarn {
				t.Errorf("judge: got %s, want WARN (a fresh workspace has no model)", c.Status)
			}
			continue
		}
		if c.Name == "commands" {
			if c.Status != StatusWarn || !strings.Contains(c.Detail, "not in "+RegistryPath(home)) {
				t.Errorf("commands: got %s (%s), want WARN: the workspace was not registered under %s", c.Status, c.Detail, home)
			}
			continue
		}
		if c.Status != StatusOK {
			t.Errorf("%s: got %s (%s; fix: %s), want OK", c.Name, c.Status, c.Detail, c.Fix)
		}
	}
	want := "workspace layout config agent commands policy canary.token api.token client.token database taint audit chronicle judge"
	if strings.Join(got, " ") != want {
		t.Errorf("checks: got %s, want %s", strings.Join(got, " "), want)
	}
	if !rep.OK() || rep.Workspace != root {
		t.Errorf("report: got ok=%v workspace=%s", rep.OK(), rep.Workspace)
	}
	if c := find(rep, "audit"); !strings.Contains(c.Detail, "1 entry verified") {
		t.Errorf("audit detail: got %q, want the entry count", c.Detail)
	}
	if after := tree(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("doctor changed the workspace:\nbefore %v\nafter  %v", names(before), names(after))
	}
	for _, tok := range []string{CanaryPath(root), APITokenPath(root)} {
		v, _ := ReadToken(tok)
		for _, c := range rep.Checks {
			if strings.Contains(c.Detail+c.Fix, v) {
				t.Errorf("%s shows a token value", c.Name)
			}
		}
	}
}

// TestDoctorWithSnapshots: Chronicle's index is verified when it holds
// snapshots, and a missing object is caught.
func TestDoctorWithSnapshots(t *testing.T) {
	root := freshWorkspace(t)
	f := filepath.Join(root, "main.go")
	writeFile(t, f, "package main\n", 0o644)
	c, err := chronicle.Open(context.Background(), root, chronicle.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Snapshot(context.Background(), []string{f}, "write_file", "s1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := find(runDoctor(t, root), "chronicle"); got.Status != StatusOK || !strings.Contains(got.Detail, "1 snapshot:") {
		t.Fatalf("chronicle with a snapshot: got %+v", got)
	}
	objects := filepath.Join(StateDir(root), "chronicle", "objects")
	err = filepath.WalkDir(objects, func(p string, de fs.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() {
			return os.Remove(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := find(runDoctor(t, root), "chronicle")
	if got.Status != StatusFail || !strings.Contains(got.Detail, "snapshot #1") || !strings.Contains(got.Detail, "missing") {
		t.Errorf("chronicle with a missing object: got %+v", got)
	}
}

type breakage struct {
	name   string
	breaks func(t *testing.T, root string)
	check  string
	status Status
	detail string // substring of the detail
	fix    string // substring of the fix
}

func breakages() []breakage {
	sp := func(root string, f string) string { return filepath.Join(StateDir(root), f) }
	return []breakage{
		{"audit byte flipped", func(t *testing.T, root string) { flipByte(t, audit.DefaultPath(root), 40) },
			"audit", StatusFail, "line 1", "evidence"},
		{"audit entry appended by hand", func(t *testing.T, root string) {
			b, _ := os.ReadFile(audit.DefaultPath(root))
			appendTo(t, audit.DefaultPath(root), string(b))
		}, "audit", StatusFail, "line 2", "anchor"},
		{"audit torn tail", func(t *testing.T, root string) { appendTo(t, audit.DefaultPath(root), `{"v":1,"seq":2`) },
			"audit", StatusFail, "torn", "parallax audit --repair"},
		{"audit removed", func(t *testing.T, root string) { remove(t, audit.DefaultPath(root)) },
			"audit", StatusFail, "is missing", "anchor"},
		{"config unknown key", func(t *testing.T, root string) {
			writeFile(t, ConfigPath(root), "version: 1\npolicy: strict\nmode: yolo\n", 0o600)
		}, "config", StatusFail, "line 3: field mode not found", "version: 1"},
		{"config bad yaml", func(t *testing.T, root string) { writeFile(t, ConfigPath(root), "version: [1\n", 0o600) },
			"config", StatusFail, "config.yaml", "policy:"},
		{"config broken skips policy", func(t *testing.T, root string) { writeFile(t, ConfigPath(root), "version: 2\npolicy: x\n", 0o600) },
			"policy", StatusSkip, "config.yaml does not load", ""},
		{"config missing", func(t *testing.T, root string) { remove(t, ConfigPath(root)) },
			"config", StatusWarn, "default policy preset applies", "version: 1"},
		{"config writable by others", func(t *testing.T, root string) { chmod(t, ConfigPath(root), 0o666) },
			"config", StatusFail, "mode 0666", "chmod 600"},
		{"config names a missing policy file", func(t *testing.T, root string) {
			writeFile(t, ConfigPath(root), "version: 1\npolicy: team.yaml\n", 0o600)
		}, "policy", StatusFail, "team.yaml", "name a preset"},
		{"policy unknown key", func(t *testing.T, root string) {
			writeFile(t, sp(root, "policy.yaml"), "deny:\n  - name: x\n    pathz: [/srv/**]\n", 0o600)
		}, "policy", StatusFail, "policy.yaml:3", "policy lint"},
		{"policy unreachable rule", func(t *testing.T, root string) {
			writeFile(t, sp(root, "policy.yaml"), "deny:\n  - name: a\n    paths: [/srv/**]\n"+
				"allow:\n  - name: b\n    paths: [/srv/**]\n", 0o600)
		}, "policy", StatusWarn, "1 lint warning", "never decide"},
		{"policy writable by others", func(t *testing.T, root string) { chmod(t, sp(root, "policy.yaml"), 0o622) },
			"policy", StatusFail, "mode 0622", "chmod 600"},
		{"token readable by others", func(t *testing.T, root string) { chmod(t, APITokenPath(root), 0o644) },
			"api.token", StatusFail, "mode 0644", "treat the token as leaked"},
		{"token truncated", func(t *testing.T, root string) { writeFile(t, CanaryPath(root), "abc", 0o600) },
			"canary.token", StatusFail, "got 3 bytes", "parallax init --force"},
		{"token missing", func(t *testing.T, root string) { remove(t, APITokenPath(root)) },
			"api.token", StatusFail, "missing", "parallax init --force"},
		{"state dir readable by others", func(t *testing.T, root string) { chmod(t, StateDir(root), 0o755) },
			"workspace", StatusFail, "mode 0755", "chmod 700"},
		{"chronicle dir missing", func(t *testing.T, root string) { remove(t, sp(root, "chronicle")) },
			"layout", StatusWarn, "chronicle/", "mkdir -m 700"},
		{"gitignore missing", func(t *testing.T, root string) { remove(t, GitignorePath(root)) },
			"layout", StatusWarn, ".gitignore is missing", "!config.yaml"},
		{"gitignore emptied", func(t *testing.T, root string) { writeFile(t, GitignorePath(root), "", 0o600) },
			"layout", StatusWarn, "tokens may reach version control", "*"},
		{"interrupted init", func(t *testing.T, root string) { mkdir(t, filepath.Join(root, ".parallax-init-123")) },
			"layout", StatusWarn, ".parallax-init-123", "backups"},
		{"database missing", func(t *testing.T, root string) { remove(t, DBPath(root)) },
			"database", StatusFail, "is missing", "parallax init --force"},
		{"database missing skips chronicle", func(t *testing.T, root string) { remove(t, DBPath(root)) },
			"chronicle", StatusSkip, "no database", ""},
		{"database garbage", func(t *testing.T, root string) {
			writeFile(t, DBPath(root), strings.Repeat("not a database ", 400), 0o600)
		}, "database", StatusFail, "parallax.db", "move the file aside"},
		{"database older schema", func(t *testing.T, root string) { setUserVersion(t, root, 1) },
			"database", StatusWarn, "schema v1", "migrates it"},
		{"database newer schema", func(t *testing.T, root string) { setUserVersion(t, root, 99) },
			"database", StatusFail, "schema v99 is newer", "parallax version"},
		{"database newer schema skips chronicle", func(t *testing.T, root string) { setUserVersion(t, root, 99) },
			"chronicle", StatusSkip, "newer than this binary", ""},
		{"taint raises waiting", func(t *testing.T, root string) {
			writeFile(t, TaintJournalPath(root), `{"session":"s1","level":4,"source":"/k"}`+"\n"+`{"session":"s2","level":3,"source":"x"}`+"\n"+
				`{"session":"s1","level":3,"source":"y"}`+"\n", 0o600)
		}, "taint", StatusWarn, "3 taint raise(s) of 2 session(s)", "free disk space"},
		{"taint journal negative level", func(t *testing.T, root string) {
			writeFile(t, TaintJournalPath(root), `{"session":"s1","level":4,"source":"/k"}`+"\n"+`{"session":"s2","level":-1,"source":"x"}`+"\n", 0o600)
		}, "taint", StatusFail, "line 2", "remove it"},
		{"taint journal blank line", func(t *testing.T, root string) {
			writeFile(t, TaintJournalPath(root), `{"session":"s1","level":4,"source":"/k"}`+"\n\n", 0o600)
		}, "taint", StatusFail, "line 2", "remove it"},
		{"taint journal torn line", func(t *testing.T, root string) {
			writeFile(t, TaintJournalPath(root), `{"session":"s1","level":4,"source":"/k"}`+"\n"+`{"session":"s2","lev`, 0o600)
		}, "taint", StatusFail, "line 2", "remove it"},
		{"taint raise waiting in the room written ahead", func(t *testing.T, root string) {
			if err := JournalTaint(root, "s1", 4, "result of Bash"); err != nil {
				t.Fatal(err)
			}
		}, "taint", StatusWarn, "1 taint raise(s) of 1 session(s)", "free disk space"},
		{"taint raise recorded nowhere", func(t *testing.T, root string) {
			if err := MarkUnrecorded(root); err != nil {
				t.Fatal(err)
			}
		}, "taint", StatusFail, "could not be recorded at all", "chmod 600"},
		{"taint journal writable by others", func(t *testing.T, root string) {
			writeFile(t, TaintJournalPath(root), "", 0o666)
			chmod(t, TaintJournalPath(root), 0o666)
		}, "taint", StatusFail, "mode 0666", "chmod 600"},
	}
}

func TestDoctorDetects(t *testing.T) {
	for _, tc := range breakages() {
		t.Run(tc.name, func(t *testing.T) {
			root := freshWorkspace(t)
			tc.breaks(t, root)
			rep := runDoctor(t, root)
			got := find(rep, tc.check)
			t.Logf("%s %s: %s (fix: %s)", got.Status, got.Name, got.Detail, got.Fix)
			if got.Status != tc.status || !strings.Contains(got.Detail, tc.detail) || !strings.Contains(got.Fix, tc.fix) {
				t.Fatalf("%s: got %s %q (fix %q), want %s with %q (fix with %q)", tc.check, got.Status, got.Detail,
					got.Fix, tc.status, tc.detail, tc.fix)
			}
			if wantOK := tc.status != StatusFail && tc.check != "policy" && tc.check != "chronicle"; wantOK && !rep.OK() {
				t.Errorf("a %s must not fail the report: %+v", tc.status, rep.Checks)
			}
			if tc.status == StatusFail && rep.OK() {
				t.Error("a FAIL must fail the report")
			}
		})
	}
}

func TestDoctorNoWorkspace(t *testing.T) {
	root := t.TempDir()
	rep := Doctor(context.Background(), root, DoctorOptions{Home: home,
		Sandbox: func() []Check { return []Check{{Name: "landlock", Status: StatusWarn}} }})
	if len(rep.Checks) != 2 || rep.Checks[0].Status != StatusFail || !strings.Contains(rep.Checks[0].Fix, "parallax init") ||
		rep.Checks[1].Name != "landlock" {
		t.Fatalf("got %+v, want the workspace FAIL and the sandbox checks only", rep.Checks)
	}
	if _, err := os.Stat(StateDir(root)); err == nil {
		t.Error("doctor created .parallax")
	}
	if rep := Doctor(context.Background(), "rel", DoctorOptions{}); rep.OK() {
		t.Error("a relative path must fail")
	}
}

func TestDoctorNeedsHome(t *testing.T) {
	root := freshWorkspace(t)
	rep := Doctor(context.Background(), root, DoctorOptions{Sandbox: noSandbox})
	if got := find(rep, "policy"); got.Status != StatusFail || !strings.Contains(got.Detail, "HOME") {
		t.Fatalf("got %+v, want a FAIL naming HOME", got)
	}
}

func flipByte(t *testing.T, p string, off int) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x01
	writeFile(t, p, string(b), 0o600)
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, p string, m fs.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func setUserVersion(t *testing.T, root string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+uriPath(DBPath(root)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDoctor(b *testing.B) {
	root := b.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if rep := Doctor(context.Background(), root, DoctorOptions{Home: home}); !rep.OK() {
			b.Fatalf("%+v", rep.Checks)
		}
	}
}

func TestDoctorJudge(t *testing.T) {
	pool := "llm:\n  models:\n    - {name: a, provider: ollama, model: m1}\n    - {name: b, provider: ollama, model: m2}\n"
	tests := []struct {
		name, llm string
		want      Status
		detail    string
	}{
		{"different models", pool + "  roles: {chat: a, shield: b}\n", StatusOK, "judge ollama/m2"},
		{"same model", pool + "  roles: {chat: a, shield: a}\n", StatusWarn, "agent's own model"},
		{"no shield role", pool + "  roles: {chat: a}\n", StatusWarn, "no shield role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := freshWorkspace(t)
			if err := os.WriteFile(ConfigPath(root), []byte("version: 1\npolicy: default\n"+tc.llm), 0o600); err != nil {
				t.Fatal(err)
			}
			c := find(runDoctor(t, root), "judge")
			if c.Status != tc.want || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("got %s %q, want %s containing %q", c.Status, c.Detail, tc.want, tc.detail)
			}
		})
	}
}

// A registered workspace's command check is OK and points at explain.
func TestDoctorCommandsRegistered(t *testing.T) {
	root, h := t.TempDir(), t.TempDir()
	if _, err := Init(context.Background(), root, InitOptions{Home: h}); err != nil {
		t.Fatal(err)
	}
	rep := Doctor(context.Background(), root, DoctorOptions{Home: h, Sandbox: noSandbox})
	if c := find(rep, "commands"); c.Status != StatusOK || !strings.Contains(c.Detail, "sandbox explain") {
		t.Fatalf("commands: %+v", c)
	}
	if roots, err := Registered(h); err != nil || len(roots) != 1 || roots[0] != root {
		t.Fatalf("registered: %q, %v", roots, err)
	}
}
