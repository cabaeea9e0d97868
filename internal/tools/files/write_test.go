//go:build linux

package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/testfs"
	"github.com/parallax/parallax/internal/tools"
)

func TestWrite(t *testing.T) {
	um := umask()
	cases := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		cfg     Config
		payload map[string]any // "path" relative to dir
		code    string
		want    string
		mode    os.FileMode
	}{
		{"new file", nil, Config{}, map[string]any{"path": "a.txt", "content": "hi"}, "", "hi", 0o644 &^ um},
		{"new file explicit mode", nil, Config{NewFileMode: 0o600}, map[string]any{"path": "a.txt", "content": "hi"}, "", "hi", 0o600},
		{"new parents", nil, Config{}, map[string]any{"path": "x/y/a.txt", "content": "deep"}, "", "deep", 0o644 &^ um},
		{"replace keeps mode", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "a.sh"), "old", 0o750)
		}, Config{}, map[string]any{"path": "a.sh", "content": "new"}, "", "new", 0o750},
		{"replace drops setuid", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "a.sh"), "old", 0o4755)
		}, Config{}, map[string]any{"path": "a.sh", "content": "new"}, "", "new", 0o755},
		{"append", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "log"), "one\n", 0o640)
		}, Config{}, map[string]any{"path": "log", "content": "two\n", "append": true}, "", "one\ntwo\n", 0o640},
		{"append creates", nil, Config{}, map[string]any{"path": "log", "content": "one\n", "append": true}, "", "one\n", 0o644 &^ um},
		{"empty content", nil, Config{}, map[string]any{"path": "empty", "content": ""}, "", "", 0o644 &^ um},
		{"directory refused", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, Config{}, map[string]any{"path": "d", "content": "x"}, tools.CodeIsDir, "", 0},
		{"parent is a file", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "f"), "x", 0o644)
		}, Config{}, map[string]any{"path": "f/a.txt", "content": "x"}, tools.CodeNotDir, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			target := filepath.Join(dir, c.payload["path"].(string))
			c.payload["path"] = target
			res, err := do(t, New(c.cfg), "write_file", c.payload)
			wantCode(t, res, err, c.code)
			noTemps(t, filepath.Dir(target))
			if c.code != "" {
				return
			}
			if got := readFile(t, target); got != c.want {
				t.Fatalf("content: got %q, want %q", got, c.want)
			}
			if got := mode(t, target); got != c.mode {
				t.Fatalf("mode: got %v, want %v", got, c.mode)
			}
		})
	}
}

func TestWriteReplacesSymlinkTargetNotLink(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real"), "old", 0o644)
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	res, err := do(t, New(Config{}), "write_file", map[string]any{"path": filepath.Join(dir, "link"), "content": "new"})
	wantCode(t, res, err, "")
	if got := readFile(t, filepath.Join(dir, "real")); got != "new" {
		t.Fatalf("target: got %q, want %q", got, "new")
	}
	if mode(t, filepath.Join(dir, "link"))&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced; want it kept, pointing at the new content")
	}
}

func TestHardLinks(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(out, "secret")
	writeFile(t, secret, "secret", 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Link(secret, link); err != nil {
		t.Fatal(err)
	}
	res, err := do(t, New(Config{}), "write_file", map[string]any{"path": link, "content": "x", "append": true})
	wantCode(t, res, err, tools.CodeNotRegular)
	res, err = do(t, New(Config{}), "write_file", map[string]any{"path": link, "content": "replaced"})
	wantCode(t, res, err, "")
	if got := readFile(t, secret); got != "secret" {
		t.Fatalf("the other name changed: %q", got)
	}
	if got := readFile(t, link); got != "replaced" {
		t.Fatalf("got %q, want %q", got, "replaced")
	}
}

func TestAtomicWriteLeavesNoTempOnError(t *testing.T) {
	for _, appendMode := range []bool{false} {
		dir := t.TempDir()
		target := filepath.Join(dir, "a.txt")
		writeFile(t, target, "original", 0o644)
		boom := errors.New("injected fault")
		hookBeforeRename = func() error { return boom }
		res, err := do(t, New(Config{}), "write_file", map[string]any{"path": target, "content": "replacement", "append": appendMode})
		hookBeforeRename = nil
		wantCode(t, res, err, tools.CodeIO)
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want the injected fault", err)
		}
		noTemps(t, dir)
		if got := readFile(t, target); got != "original" {
			t.Fatalf("target changed to %q on a failed write", got)
		}
	}
}

func TestAtomicWriteDiskFull(t *testing.T) {
	mnt := testfs.MountSmall(t, "TestAtomicWriteLeavesNoTempOnError")
	target := filepath.Join(mnt, "a.txt")
	writeFile(t, target, "original", 0o644)
	testfs.Fill(t, mnt)
	res, err := do(t, New(Config{}), "write_file", map[string]any{"path": target, "content": strings.Repeat("x", 64<<10)})
	if err == nil {
		t.Fatal("write on a full file system succeeded")
	}
	wantCode(t, res, err, tools.CodeIO)
	noTemps(t, mnt)
	if got := readFile(t, target); got != "original" {
		t.Fatalf("target changed to %q on a failed write", got)
	}
}

func TestEdit(t *testing.T) {
	cases := []struct {
		name, content, old, new string
		code, want              string
		msg                     string // in the error
	}{
		{"once", "a := 1\nb := 2\n", "b := 2", "b := 3", "", "a := 1\nb := 3\n", ""},
		{"delete text", "keep drop keep", " drop", "", "", "keep keep", ""},
		{"absent", "a := 1\n", "c := 1", "x", tools.CodeNoMatch, "", "0 times"},
		{"twice", "x\nx\n", "x", "y", tools.CodeAmbiguous, "", "2 times"},
		{"three times", "aaa", "a", "b", tools.CodeAmbiguous, "", "3 times"},
		{"empty old", "abc", "", "x", tools.CodeBadInput, "", "must not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "f.go")
			writeFile(t, target, c.content, 0o600)
			res, err := do(t, New(Config{}), "edit_file", map[string]any{"path": target, "old": c.old, "new": c.new})
			wantCode(t, res, err, c.code)
			noTemps(t, dir)
			if c.code != "" {
				if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), target) {
					t.Fatalf("error %q: want %q and the path", err, c.msg)
				}
				if got := readFile(t, target); got != c.content {
					t.Fatalf("file changed on a refused edit: %q", got)
				}
				return
			}
			if got := readFile(t, target); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if got := mode(t, target); got != 0o600 {
				t.Fatalf("mode: got %v, want 0600", got)
			}
		})
	}
}

func TestEditSizeCap(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f")
	writeFile(t, target, strings.Repeat("x", 100)+"needle", 0o644)
	res, err := do(t, New(Config{MaxEditBytes: 50}), "edit_file", map[string]any{"path": target, "old": "needle", "new": "pin"})
	wantCode(t, res, err, tools.CodeTooLarge)
}
