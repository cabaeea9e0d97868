package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nlicense: MIT\n---\n# " + name + "\nbody\n"
}

func TestLoadBootstrap(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, "SOUL.md"), "Be kind.\n")
	write(t, filepath.Join(ws, "AGENTS.md"), "Run go test before you commit.")
	secret := filepath.Join(home, "id_rsa")
	write(t, secret, "-----BEGIN OPENSSH PRIVATE KEY-----")
	if err := os.Symlink(secret, filepath.Join(ws, "USER.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "IDENTITY.md"), "bad \xff bytes")
	write(t, filepath.Join(home, ".parallax/skills/deploy/SKILL.md"), skillMD("deploy", "home deploy"))
	write(t, filepath.Join(home, ".parallax/skills/notes/SKILL.md"), skillMD("notes", "keep notes"))
	write(t, filepath.Join(ws, "skills/deploy/SKILL.md"), skillMD("deploy", "workspace   deploy\n  steps"))
	write(t, filepath.Join(ws, "skills/broken/SKILL.md"), "no front matter")
	write(t, filepath.Join(ws, "skills/other/SKILL.md"), skillMD("wrong", "x"))
	write(t, filepath.Join(ws, "skills/Bad Name/SKILL.md"), skillMD("Bad Name", "x"))

	b, err := LoadBootstrap(ws, home)
	if err != nil {
		t.Fatal(err)
	}
	if b.Files["SOUL.md"] != "Be kind." || b.Files["AGENTS.md"] == "" {
		t.Fatalf("files %q", b.Files)
	}
	if _, ok := b.Files["USER.md"]; ok {
		t.Fatal("a symlink out of the workspace was followed")
	}
	if _, ok := b.Files["IDENTITY.md"]; ok {
		t.Fatal("non-UTF-8 file accepted")
	}
	got := map[string]Skill{}
	for _, s := range b.Skills {
		got[s.Name] = s
	}
	if len(got) != 2 || got["deploy"].Description != "workspace deploy steps" || got["deploy"].Source != "workspace" ||
		got["notes"].Source != "home" {
		t.Fatalf("skills %+v", b.Skills)
	}
	warn := strings.Join(b.Warnings, "\n")
	for _, w := range []string{"USER.md skipped", "IDENTITY.md skipped: not UTF-8", "skill broken skipped", `names "wrong"`, "skill Bad Name skipped"} {
		if !strings.Contains(warn, w) {
			t.Errorf("warnings lack %q:\n%s", w, warn)
		}
	}
	p := SystemPrompt(b, Env{Workspace: ws, Today: "2026-11-26"})
	if strings.Contains(p, "PRIVATE KEY") {
		t.Fatal("key material in the prompt")
	}
	soul, agents := strings.Index(p, "# SOUL.md"), strings.Index(p, "# AGENTS.md")
	if soul < 0 || agents < soul || !strings.Contains(p, "- deploy (workspace): workspace deploy steps") ||
		!strings.Contains(p, "The workspace is "+ws) || !strings.Contains(p, "2026-11-26") {
		t.Fatalf("prompt:\n%s", p)
	}
}

func TestLoadBootstrapBounds(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "SOUL.md"), strings.Repeat("é", maxPersonaBytes)) // 2 bytes each
	b, err := LoadBootstrap(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Files["SOUL.md"]); n == 0 || n > maxPersonaBytes {
		t.Fatalf("SOUL.md kept %d bytes", n)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "cut to") {
		t.Fatalf("warnings %q", b.Warnings)
	}
	if _, err := LoadBootstrap(filepath.Join(ws, "missing"), ""); err == nil {
		t.Fatal("a missing workspace is not an error")
	}
}

func TestFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"---\nname: a\n---\nbody", "name: a\n", true},
		{"\ufeff---\r\nname: a\r\n---\r\n", "name: a\r\n", true},
		{"---\nname: a\n", "", false},
		{"name: a\n---\n", "", false},
		{"---\n---\n", "", true},
	} {
		got, ok := frontMatter(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("frontMatter(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
