//go:build linux

package files

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/internal/tools"
)

// tree builds files (content) and directories (ending in /) under dir.
func tree(t *testing.T, dir string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(dir, e)
		if e[len(e)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		writeFile(t, p, "content of "+e, 0o644)
	}
}

func TestDelete(t *testing.T) {
	cases := []struct {
		name      string
		entries   []string
		links     map[string]string // link -> target (relative to dir; "@out" is outside)
		path      string
		recursive bool
		code      string
		gone      []string
		kept      []string
	}{
		{name: "file", entries: []string{"a.txt", "b.txt"}, path: "a.txt", gone: []string{"a.txt"}, kept: []string{"b.txt"}},
		{name: "empty dir", entries: []string{"d/"}, path: "d", gone: []string{"d"}},
		{name: "non-empty dir needs recursive", entries: []string{"d/x"}, path: "d", code: tools.CodeIsDir, kept: []string{"d/x"}},
		{name: "recursive", entries: []string{"d/x", "d/e/y", "d/e/f/"}, path: "d", recursive: true, gone: []string{"d"}},
		{name: "recursive never follows links out", entries: []string{"d/x"}, links: map[string]string{"d/out": "@out"},
			path: "d", recursive: true, gone: []string{"d"}},
		{name: "link removed, not its target", entries: []string{"t.txt"}, links: map[string]string{"l": "t.txt"},
			path: "l", gone: []string{"l"}, kept: []string{"t.txt"}},
		{name: "missing", path: "nope", code: tools.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			tree(t, dir, c.entries...)
			writeFile(t, filepath.Join(out, "precious"), "keep me", 0o644)
			for l, target := range c.links {
				if target == "@out" {
					target = out
				}
				if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
					t.Fatal(err)
				}
			}
			res, err := do(t, New(Config{}), "delete_file", map[string]any{"path": filepath.Join(dir, c.path), "recursive": c.recursive})
			wantCode(t, res, err, c.code)
			for _, g := range c.gone {
				if exists(filepath.Join(dir, g)) {
					t.Errorf("%s still exists", g)
				}
			}
			for _, k := range c.kept {
				if !exists(filepath.Join(dir, k)) {
					t.Errorf("%s was deleted", k)
				}
			}
			if got := readFile(t, filepath.Join(out, "precious")); got != "keep me" {
				t.Fatalf("file outside changed: %q", got)
			}
		})
	}
}

func TestMove(t *testing.T) {
	cases := []struct {
		name     string
		entries  []string
		src, dst string
		code     string
		want     string // content at dst after success
	}{
		{"rename", []string{"a"}, "a", "b", "", "content of a"},
		{"into new dirs", []string{"a"}, "a", "x/y/b", "", "content of a"},
		{"overwrite file", []string{"a", "b"}, "a", "b", "", "content of a"},
		{"directory", []string{"d/f"}, "d", "e", "", ""},
		{"onto directory refused", []string{"a", "d/"}, "a", "d", tools.CodeExists, ""},
		{"dir onto file refused", []string{"d/f", "b"}, "d", "b", tools.CodeExists, ""},
		{"missing source", nil, "a", "b", tools.CodeNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tree(t, dir, c.entries...)
			src, dst := filepath.Join(dir, c.src), filepath.Join(dir, c.dst)
			res, err := do(t, New(Config{}), "move_file", map[string]any{"source": src, "destination": dst})
			wantCode(t, res, err, c.code)
			if c.code != "" {
				return
			}
			if exists(src) {
				t.Fatal("source still exists")
			}
			if c.want != "" && readFile(t, dst) != c.want {
				t.Fatalf("destination: got %q, want %q", readFile(t, dst), c.want)
			}
			if c.want == "" && !exists(filepath.Join(dst, "f")) {
				t.Fatal("moved directory lost its content")
			}
		})
	}
}

func TestCopy(t *testing.T) {
	cases := []struct {
		name     string
		entries  []string
		src, dst string
		code     string
	}{
		{"new", []string{"a"}, "a", "b", ""},
		{"into new dirs", []string{"a"}, "a", "x/b", ""},
		{"overwrite file", []string{"a", "b"}, "a", "b", ""},
		{"onto directory refused", []string{"a", "d/"}, "a", "d", tools.CodeExists},
		{"missing source", nil, "a", "b", tools.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tree(t, dir, c.entries...)
			src, dst := filepath.Join(dir, c.src), filepath.Join(dir, c.dst)
			if exists(src) {
				if err := os.Chmod(src, 0o751); err != nil {
					t.Fatal(err)
				}
			}
			res, err := do(t, New(Config{}), "copy_file", map[string]any{"source": src, "destination": dst})
			wantCode(t, res, err, c.code)
			noTemps(t, filepath.Dir(dst))
			if c.code != "" {
				return
			}
			if got, want := readFile(t, dst), readFile(t, src); got != want {
				t.Fatalf("copy: got %q, want %q", got, want)
			}
			if got := mode(t, dst); got != 0o751 {
				t.Fatalf("mode: got %v, want 0751 (kept)", got)
			}
		})
	}
}

func TestCreateDirectory(t *testing.T) {
	cases := []struct {
		name    string
		entries []string
		path    string
		code    string
	}{
		{"new", nil, "d", ""},
		{"parents", nil, "a/b/c", ""},
		{"exists", []string{"d/"}, "d", ""},
		{"file in the way", []string{"f"}, "f", tools.CodeNotDir},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tree(t, dir, c.entries...)
			p := filepath.Join(dir, c.path)
			res, err := do(t, New(Config{}), "create_directory", map[string]any{"path": p})
			wantCode(t, res, err, c.code)
			if c.code == "" && !mode(t, p).IsDir() {
				t.Fatalf("%s is not a directory", p)
			}
		})
	}
}

func TestCopyDirectory(t *testing.T) {
	cases := []struct {
		name     string
		cfg      Config
		src, dst string
		code     string
	}{
		{name: "tree", src: "d", dst: "e"},
		{name: "into new parents", src: "d", dst: "x/y/e"},
		{name: "onto an existing directory", src: "d", dst: "other", code: tools.CodeExists},
		{name: "onto an existing file", src: "d", dst: "file", code: tools.CodeExists},
		{name: "into itself", src: "d", dst: "d/sub/copy", code: tools.CodeBadInput},
		{name: "entry cap", cfg: Config{MaxCopyEntries: 2}, src: "d", dst: "e", code: tools.CodeTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			tree(t, dir, "d/a.txt", "d/sub/b.txt", "d/sub/deeper/", "other/", "file")
			must(t, os.Chmod(filepath.Join(dir, "d/a.txt"), 0o700))
			must(t, os.Chmod(filepath.Join(dir, "d/sub"), 0o750))
			must(t, os.Symlink(out, filepath.Join(dir, "d/outlink")))
			res, err := do(t, New(guarded(t, dir, c.cfg)), "copy_file", map[string]any{"source": filepath.Join(dir, c.src), "destination": filepath.Join(dir, c.dst)})
			wantCode(t, res, err, c.code)
			if c.code != "" {
				return
			}
			dst := filepath.Join(dir, c.dst)
			for _, f := range []string{"a.txt", "sub/b.txt"} {
				if got, want := readFile(t, filepath.Join(dst, f)), "content of d/"+f; got != want {
					t.Fatalf("%s: got %q, want %q", f, got, want)
				}
			}
			if got := mode(t, filepath.Join(dst, "a.txt")); got != 0o700 {
				t.Fatalf("file mode: got %v, want 0700", got)
			}
			if got := mode(t, filepath.Join(dst, "sub")); got != os.ModeDir|0o750 {
				t.Fatalf("dir mode: got %v, want drwxr-x---", got)
			}
			if !mode(t, filepath.Join(dst, "sub/deeper")).IsDir() {
				t.Fatal("empty directory not copied")
			}
			if got, err := os.Readlink(filepath.Join(dst, "outlink")); err != nil || got != out {
				t.Fatalf("symlink: got %q, %v; want a link to %s", got, err, out)
			}
			if res.Output != "copied "+filepath.Join(dir, c.src)+" to "+dst+" (5 entries)" {
				t.Fatalf("output %q", res.Output)
			}
		})
	}
}
