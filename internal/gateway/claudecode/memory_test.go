package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMemoryImports: the @imports of a memory file as Claude Code 2.1.332
// reads them — outside code and HTML comments, ~ is the home, relative
// to the importing file — and, where a markdown token may end a word, the
// word cut there too (more imports, never fewer).
func TestMemoryImports(t *testing.T) {
	const dir, home = "/w/docs", "/h"
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"relative", "See @notes.md for more.", []string{"/w/docs/notes.md"}},
		{"dot relative and parent", "@./a.md and @../b.md", []string{"/w/docs/a.md", "/w/b.md"}},
		{"home", "@~/.ssh/id_rsa", []string{"/h/.ssh/id_rsa"}},
		{"absolute", "load @/etc/app/secrets.md now", []string{"/etc/app/secrets.md"}},
		{"fragment cut", "@guide.md#setup", []string{"/w/docs/guide.md"}},
		{"escaped space", `@my\ notes.md`, []string{"/w/docs/my notes.md"}},
		{"line start", "intro\n@x.md\n", []string{"/w/docs/x.md"}},
		{"bold", "**@x.md**", []string{"/w/docs/x.md**", "/w/docs/x.md"}},
		{"link text", "[@x.md](y)", []string{"/w/docs/x.md](y)", "/w/docs/x.md"}},
		{"email is no import", "mail dev@example.com", nil},
		{"bare root is no import", "@/ and @ alone", nil},
		{"symbols are no import", "@#tag @%x @@y", nil},
		{"code span", "use `@secret.md` literally, but @real.md", []string{"/w/docs/real.md"}},
		{"double backtick span", "``a ` @in.md`` @out.md", []string{"/w/docs/out.md"}},
		{"unmatched backtick is text", "a ` @x.md", []string{"/w/docs/x.md"}},
		{"span ends at a blank line", "a `b\n\n@x.md `", []string{"/w/docs/x.md"}},
		{"a span over lines is followed", "a `b\n@x.md `", []string{"/w/docs/x.md"}},
		{"fenced block", "```sh\ncat @in.md\n```\n@out.md", []string{"/w/docs/out.md"}},
		{"tilde fence, longer close", "~~~\n@in.md\n~~~~\n@out.md", []string{"/w/docs/out.md"}},
		{"unclosed fence is followed", "```\n@x.md", []string{"/w/docs/x.md"}},
		{"indented four is no fence", "    ```\n@x.md\n    ```", []string{"/w/docs/x.md"}},
		{"html comment", "<!-- @in.md -->@out.md", []string{"/w/docs/out.md"}},
		{"unclosed comment is followed", "<!-- @x.md", []string{"/w/docs/x.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := memoryImports([]byte(c.text), filepath.Join(dir, "CLAUDE.md"), home)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestMemoryFiles: the files Claude Code loads at session start, for the
// session's directory and each one above it.
func TestMemoryFiles(t *testing.T) {
	base := t.TempDir()
	home, managed := filepath.Join(base, "home"), filepath.Join(base, "etc")
	proj := filepath.Join(base, "src", "proj")
	writeFile(t, filepath.Join(proj, ".claude", "rules", "deep", "x.md"), "x")
	writeFile(t, filepath.Join(proj, ".claude", "rules", "notes.txt"), "not a rule")
	writeFile(t, filepath.Join(home, ".claude", "rules", "u.md"), "u")
	writeFile(t, filepath.Join(managed, ".claude", "rules", "m.md"), "m")
	got := memoryFiles(memoryEnv{home: home, managed: managed}, proj)
	var paths []string
	for _, s := range got {
		paths = append(paths, strings.TrimPrefix(s.path, base))
	}
	for _, want := range []string{
		"/etc/CLAUDE.md", "/etc/.claude/rules/m.md", "/home/.claude/CLAUDE.md", "/home/.claude/rules/u.md",
		"/CLAUDE.md", "/src/CLAUDE.md", "/src/proj/CLAUDE.md", "/src/proj/.claude/CLAUDE.md",
		"/src/proj/.claude/rules/deep/x.md", "/src/proj/CLAUDE.local.md",
		"/home/.claude/projects/" + projectSlug(proj) + "/memory/MEMORY.md",
	} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s is not listed: %q", want, paths)
		}
	}
	if slices.Contains(paths, "/src/proj/.claude/rules/notes.txt") {
		t.Errorf("a rules file that is no .md is listed")
	}
	if i, j := slices.Index(paths, "/src/CLAUDE.md"), slices.Index(paths, "/src/proj/CLAUDE.md"); i > j {
		t.Errorf("parents come first: %q", paths)
	}
}

// TestRulesFilesSymlinkLoop: a rules directory linking to itself is
// walked once.
func TestRulesFilesSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "a")
	if err := os.Symlink(dir, filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if got := rulesFiles(dir); len(got) != 1 {
		t.Errorf("got %q, want a.md once", got)
	}
}

func FuzzMemoryImports(f *testing.F) {
	for _, s := range []string{"@a.md", "```\n@a\n```", "`` @x ``", "<!-- @a -->", "**@b.md**", "@~/x#y", "\\`@a`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range memoryImports([]byte(s), "/w/CLAUDE.md", "/h") {
			if !filepath.IsAbs(p) {
				t.Fatalf("import %q of %q is not absolute", p, s)
			}
		}
		if got := stripCode(s); len(got) != len(s) || strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("stripCode changed the shape of %q: %q", s, got)
		}
	})
}
