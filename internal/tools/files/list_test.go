//go:build linux

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/tools"
)

func TestList(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	tree(t, dir, "b.txt", "a/", "a/z.go", "c/d/e.txt")
	writeFile(t, filepath.Join(out, "secret"), "s", 0o644)
	if err := os.Symlink(out, filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		cfg       Config
		path      string
		recursive bool
		code      string
		want      []string
		truncated bool
	}{
		{name: "flat", path: ".", want: []string{"dir\t-\ta/", "file\t16\tb.txt", "dir\t-\tc/", "link\t-\tl -> " + out}},
		{name: "recursive, links not followed", path: ".", recursive: true, want: []string{"dir\t-\ta/", "file\t17\ta/z.go",
			"file\t16\tb.txt", "dir\t-\tc/", "dir\t-\tc/d/", "file\t20\tc/d/e.txt", "link\t-\tl -> " + out}},
		{name: "entry cap", cfg: Config{MaxListEntries: 2}, path: ".", recursive: true,
			want: []string{"dir\t-\ta/", "file\t17\ta/z.go", "[… listing stopped after 2 entries]"}, truncated: true},
		{name: "output cap", cfg: Config{MaxOutputBytes: 23}, path: ".",
			want: []string{"dir\t-\ta/", "file\t16\tb.txt", "[… listing stopped after 2 entries]"}, truncated: true},
		{name: "dot-dot cleaned", path: "c/d/..", want: []string{"dir\t-\td/"}},
		{name: "a file", path: "b.txt", code: tools.CodeNotDir},
		{name: "missing", path: "nope", code: tools.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.path)
			res, err := do(t, New(guarded(t, dir, c.cfg)), "list_directory", map[string]any{"path": p, "recursive": c.recursive})
			wantCode(t, res, err, c.code)
			if c.code != "" {
				return
			}
			if got, want := res.Output, strings.Join(c.want, "\n")+"\n"; got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			if res.Truncated != c.truncated {
				t.Fatalf("truncated: got %v, want %v", res.Truncated, c.truncated)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n// TODO fix\nfunc main() {}\n", 0o644)
	writeFile(t, filepath.Join(dir, "sub/util.go"), "package sub\n// TODO later\n", 0o644)
	writeFile(t, filepath.Join(dir, "sub/notes.md"), "nothing to do\n", 0o644)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("TODO\n", 100), 0o644)
	writeFile(t, filepath.Join(dir, "bin.dat"), "TODO\x00", 0o644)
	writeFile(t, filepath.Join(out, "secret.go"), "TODO outside\n", 0o644)
	if err := os.Symlink(out, filepath.Join(dir, "outlink")); err != nil {
		t.Fatal(err)
	}
	small := Config{MaxSearchFileBytes: 100}
	cases := []struct {
		name      string
		cfg       Config
		path      string
		pattern   string
		code      string
		want      []string
		truncated bool
	}{
		{name: "regex over contents", cfg: small, path: ".", pattern: "TODO \\w+", want: []string{
			`lines matching regex "TODO \\w+":`, "main.go:2: // TODO fix", "sub/util.go:2: // TODO later"}},
		{name: "glob over names", path: ".", pattern: "*.go", want: []string{
			`names matching glob "*.go":`, "main.go", "sub/util.go"}},
		{name: "glob with a slash", path: ".", pattern: "sub/*.md", want: []string{
			`names matching glob "sub/*.md":`, "sub/notes.md"}},
		{name: "both", cfg: small, path: ".", pattern: "main.go", want: []string{
			`names matching glob "main.go":`, "main.go"}},
		{name: "one file", path: "main.go", pattern: "func", want: []string{
			`lines matching regex "func":`, "main.go:3: func main() {}"}},
		{name: "match cap", cfg: Config{MaxSearchMatches: 3}, path: ".", pattern: "^TODO$", want: []string{
			`lines matching regex "^TODO$":`, "big.txt:1: TODO", "big.txt:2: TODO", "big.txt:3: TODO",
			"[… search stopped at 3 matches]"}, truncated: true},
		{name: "file cap", cfg: Config{MaxSearchFiles: 3}, path: ".", pattern: "^package", want: []string{
			`lines matching regex "^package":`, "main.go:1: package main", "[… search stopped at 3 entries visited]"}, truncated: true},
		{name: "glob: names only", cfg: small, path: ".", pattern: "glob:main.go", want: []string{
			`names matching glob "main.go":`, "main.go"}},
		{name: "glob: is not a regex", path: ".", pattern: "glob:TODO", want: []string{"no matches"}},
		{name: "glob: bad", path: ".", pattern: "glob:[", code: tools.CodeBadInput},
		{name: "no match", path: ".", pattern: "zzz", want: []string{"no matches"}},
		{name: "bad pattern", path: ".", pattern: "[", code: tools.CodeBadInput},
		{name: "missing", path: "nope", pattern: "x", code: tools.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := do(t, New(guarded(t, dir, c.cfg)), "search_files", map[string]any{"path": filepath.Join(dir, c.path), "pattern": c.pattern})
			wantCode(t, res, err, c.code)
			if c.code != "" {
				return
			}
			if got, want := res.Output, strings.Join(c.want, "\n")+"\n"; got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			if res.Truncated != c.truncated {
				t.Fatalf("truncated: got %v, want %v", res.Truncated, c.truncated)
			}
		})
	}
}
