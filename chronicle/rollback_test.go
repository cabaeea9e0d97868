package chronicle

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// base is the tree every rollback case starts from.
var base = spec{
	"README.md":          "hello\n",
	"src/":               "",
	"src/main.go":        "package main\n",
	"src/util.go":        "package main\n\nfunc util() {}\n",
	"src/lib/":           "",
	"src/lib/a.txt":      "a\n",
	"src/link":           "->main.go",
	"src/out":            "->/etc/passwd", // points outside: stored as a link, never followed
	"bin/":               "",
	"bin/run.sh":         "#!/bin/sh\necho hi\n",
	"locked/":            "",
	"locked/config.json": "{}\n",
	"shared/":            "",
	"shared/setgid":      "x",
}

var baseModes = map[string]fs.FileMode{"bin/run.sh": 0o755, "locked": 0o555, "src/lib/a.txt": 0o600,
	"shared": 0o777 | fs.ModeSticky, "shared/setgid": 0o750 | fs.ModeSetgid}

func TestSnapshotRollbackRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		paths  []string // snapshotted, relative
		mutate func(t *testing.T, ws string)
	}{
		{"modify file", []string{"README.md"}, func(t *testing.T, ws string) {
			must(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("overwritten"), 0o644))
		}},
		{"delete file", []string{"src/main.go"}, func(t *testing.T, ws string) {
			must(t, os.Remove(filepath.Join(ws, "src/main.go")))
		}},
		{"chmod file", []string{"bin/run.sh"}, func(t *testing.T, ws string) {
			must(t, os.Chmod(filepath.Join(ws, "bin/run.sh"), 0o600))
		}},
		{"create file in new directories", []string{"new/deep/file.txt"}, func(t *testing.T, ws string) {
			must(t, os.MkdirAll(filepath.Join(ws, "new/deep"), 0o755))
			must(t, os.WriteFile(filepath.Join(ws, "new/deep/file.txt"), []byte("x"), 0o644))
		}},
		{"recursive delete", []string{"src"}, func(t *testing.T, ws string) {
			must(t, os.RemoveAll(filepath.Join(ws, "src")))
		}},
		{"files added inside directory", []string{"src"}, func(t *testing.T, ws string) {
			must(t, os.WriteFile(filepath.Join(ws, "src/extra.go"), []byte("x"), 0o644))
			must(t, os.MkdirAll(filepath.Join(ws, "src/lib/gen/x"), 0o755))
			must(t, os.WriteFile(filepath.Join(ws, "src/lib/gen/x/y"), []byte("y"), 0o644))
		}},
		{"type swaps", []string{"src"}, func(t *testing.T, ws string) {
			must(t, os.Remove(filepath.Join(ws, "src/main.go")))
			must(t, os.Mkdir(filepath.Join(ws, "src/main.go"), 0o755)) // file → dir
			must(t, os.RemoveAll(filepath.Join(ws, "src/lib")))
			must(t, os.WriteFile(filepath.Join(ws, "src/lib"), []byte("now a file"), 0o644)) // dir → file
			must(t, os.Remove(filepath.Join(ws, "src/util.go")))
			must(t, os.Symlink("/etc/hostname", filepath.Join(ws, "src/util.go"))) // file → link
			must(t, os.Remove(filepath.Join(ws, "src/link")))
			must(t, os.WriteFile(filepath.Join(ws, "src/link"), []byte("link → file"), 0o644))
		}},
		{"retarget symlink", []string{"src/link"}, func(t *testing.T, ws string) {
			must(t, os.Remove(filepath.Join(ws, "src/link")))
			must(t, os.Symlink("util.go", filepath.Join(ws, "src/link")))
		}},
		{"move", []string{"src/util.go", "moved.go"}, func(t *testing.T, ws string) {
			must(t, os.Rename(filepath.Join(ws, "src/util.go"), filepath.Join(ws, "moved.go")))
		}},
		{"read-only directory", []string{"locked"}, func(t *testing.T, ws string) {
			d := filepath.Join(ws, "locked")
			must(t, os.Chmod(d, 0o755))
			must(t, os.WriteFile(filepath.Join(d, "config.json"), []byte(`{"x":1}`), 0o644))
			must(t, os.WriteFile(filepath.Join(d, "new"), []byte("n"), 0o644))
			must(t, os.Chmod(d, 0o500))
		}},
		{"special mode bits", []string{"shared"}, func(t *testing.T, ws string) {
			must(t, os.Chmod(filepath.Join(ws, "shared"), 0o755))
			must(t, os.Chmod(filepath.Join(ws, "shared/setgid"), 0o644))
		}},
		{"whole workspace", []string{"."}, func(t *testing.T, ws string) {
			must(t, os.RemoveAll(filepath.Join(ws, "bin")))
			must(t, os.WriteFile(filepath.Join(ws, "top.txt"), []byte("t"), 0o644))
			must(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("r"), 0o600))
		}},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ws, _ := newTest(t, Options{})
			writeTree(t, ws, base, baseModes)
			t.Cleanup(func() { _ = os.Chmod(filepath.Join(ws, "locked"), 0o755) })
			before := state(t, ws)
			snap, err := c.Snapshot(ctx, abs(ws, tc.paths...), "test", "s1")
			must(t, err)
			tc.mutate(t, ws)
			mutated := state(t, ws)
			if diffStates(before, mutated) == "" {
				t.Fatal("mutation changed nothing")
			}
			res, err := c.Rollback(ctx, snap.ID)
			must(t, err)
			if d := diffStates(before, state(t, ws)); d != "" {
				t.Fatalf("after rollback:\n%s", d)
			}
			if res.Restored+res.Removed == 0 {
				t.Errorf("rollback reports no work: %+v", res)
			}
			if res.Undo.Session != UndoSession {
				t.Errorf("undo snapshot session: got %q, want %q (the rollback's, not the agent's s1)", res.Undo.Session, UndoSession)
			}
			// The rollback itself can be undone.
			_, err = c.Rollback(ctx, res.Undo.ID)
			must(t, err)
			if d := diffStates(mutated, state(t, ws)); d != "" {
				t.Fatalf("after undo:\n%s", d)
			}
			must(t, c.Verify(ctx, true))
		})
	}
}

func TestSnapshotEntries(t *testing.T) {
	c, ws, _ := newTest(t, Options{})
	writeTree(t, ws, base, baseModes)
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(ws, "locked"), 0o755) })
	ctx := context.Background()
	snap, err := c.Snapshot(ctx, abs(ws, "src", "src/lib/a.txt", "bin/run.sh", "nothing/here"), "write_file", "s1")
	must(t, err)
	if got, want := strings.Join(snap.Paths, " "), "bin/run.sh nothing src"; got != want {
		t.Errorf("paths: got %v, want %v", got, want)
	}
	_, entries, err := c.Get(ctx, snap.ID)
	must(t, err)
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Path] = e
	}
	tests := []struct {
		path string
		typ  Type
		mode fs.FileMode
		link string
	}{
		{"bin/run.sh", TypeFile, 0o755, ""},
		{"nothing", TypeAbsent, 0, ""}, // topmost missing ancestor
		{"src", TypeDir, 0o755, ""},
		{"src/lib/a.txt", TypeFile, 0o600, ""},
		{"src/link", TypeSymlink, 0o777, "main.go"},
		{"src/out", TypeSymlink, 0o777, "/etc/passwd"},
	}
	for _, tc := range tests {
		e, ok := got[tc.path]
		if !ok {
			t.Errorf("%s: missing", tc.path)
			continue
		}
		if e.Type != tc.typ || e.Mode != tc.mode || e.Link != tc.link {
			t.Errorf("%s: got %s %v %q, want %s %v %q", tc.path, e.Type, e.Mode, e.Link, tc.typ, tc.mode, tc.link)
		}
	}
	if len(entries) != 9 || snap.Files != 9 { // src: 7 entries, bin/run.sh, nothing
		t.Errorf("got %d entries (%d recorded), want 9", len(entries), snap.Files)
	}
	if e := got["src/main.go"]; e.Size != 13 || e.Object == "" || e.ModTime.IsZero() {
		t.Errorf("src/main.go: got %+v", e)
	}
	if snap.Stats.Copied+snap.Stats.Cloned+snap.Stats.Reused != snap.Stats.Hashed || snap.Stats.Hashed != 4 {
		t.Errorf("stats: got %+v", snap.Stats)
	}
	if n := objectFiles(t, c); n != 4 {
		t.Errorf("objects: got %d, want 4", n)
	}
	obj, err := os.Stat(c.objects.path(got["src/main.go"].Object))
	must(t, err)
	dir, err := os.Stat(c.dir)
	must(t, err)
	if obj.Mode().Perm() != 0o400 || dir.Mode().Perm() != 0o700 {
		t.Errorf("store modes: object %v, dir %v; want 0400, 0700", obj.Mode().Perm(), dir.Mode().Perm())
	}
	// The same contents again under other names store nothing new.
	writeTree(t, ws, spec{"copy/": "", "copy/m.go": "package main\n", "copy/a": "a\n"}, nil)
	again, err := c.Snapshot(ctx, abs(ws, "copy"), "copy_file", "s1")
	must(t, err)
	if again.NewBytes != 0 || again.Stats.Reused != 2 || objectFiles(t, c) != 4 {
		t.Errorf("dedupe: got %+v, %d objects", again, objectFiles(t, c))
	}
}

func TestSnapshotRefusals(t *testing.T) {
	c, ws, _ := newTest(t, Options{MaxFiles: 6, MaxBytes: 40})
	outside := t.TempDir()
	writeTree(t, ws, spec{"a.txt": "0123456789", "big": strings.Repeat("x", 41), "d/": "",
		"d/1": "1", "d/2": "2", "d/3": "3", "d/4": "4", "d/5": "5", "d/6": "6", "esc": "->" + outside}, nil)
	writeTree(t, outside, spec{"victim": "v"}, nil)
	fifo := filepath.Join(ws, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx := context.Background()
	tests := []struct {
		name  string
		paths []string
		want  error
	}{
		{"outside", []string{filepath.Join(outside, "victim")}, ErrOutside},
		{"through symlinked parent", []string{filepath.Join(ws, "esc", "victim")}, ErrOutside},
		{"sealed dir", []string{filepath.Join(ws, ".parallax", "parallax.db")}, ErrOutside},
		{"sealed dir itself", []string{filepath.Join(ws, ".parallax")}, ErrOutside},
		{"dot-dot escape", []string{ws + "/../x"}, ErrOutside},
		{"relative", []string{"a.txt"}, nil},
		{"none", nil, nil},
		{"fifo", []string{fifo}, ErrUnsupported},
		{"too many files", []string{filepath.Join(ws, "d")}, ErrTooLarge},
		{"too many bytes", []string{filepath.Join(ws, "a.txt"), filepath.Join(ws, "big")}, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Snapshot(ctx, tc.paths, "x", "s")
			if err == nil {
				t.Fatal("got nil error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	list, err := c.List(ctx)
	must(t, err)
	if len(list) != 0 {
		t.Errorf("refused snapshots were recorded: %+v", list)
	}
	// The symlink itself, as a link, is fine.
	s, err := c.Snapshot(ctx, abs(ws, "esc"), "x", "s")
	must(t, err)
	_, entries, _ := c.Get(ctx, s.ID)
	if len(entries) != 1 || entries[0].Type != TypeSymlink {
		t.Errorf("got %+v, want one symlink", entries)
	}
}

func TestRollbackRefusesSymlinkedParent(t *testing.T) {
	c, ws, _ := newTest(t, Options{})
	outside := t.TempDir()
	writeTree(t, ws, spec{"dir/": "", "dir/f.txt": "original"}, nil)
	ctx := context.Background()
	snap, err := c.Snapshot(ctx, abs(ws, "dir/f.txt"), "x", "s")
	must(t, err)
	// The agent swaps dir for a link to a directory outside the workspace.
	must(t, os.RemoveAll(filepath.Join(ws, "dir")))
	must(t, os.Symlink(outside, filepath.Join(ws, "dir")))
	_, err = c.Rollback(ctx, snap.ID)
	if err == nil || !strings.Contains(err.Error(), "refusing to restore through it") {
		t.Fatalf("got %v, want refusal", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rollback wrote outside the workspace: %v", err)
	}
}

func TestCorruptObjectAbortsRollback(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, obj string)
		wantErr string
	}{
		{"flipped byte", func(t *testing.T, obj string) {
			must(t, os.Chmod(obj, 0o600))
			b, err := os.ReadFile(obj)
			must(t, err)
			b[0] ^= 1
			must(t, os.WriteFile(obj, b, 0o600))
		}, "does not match its hash"},
		{"missing", func(t *testing.T, obj string) { must(t, os.Remove(obj)) }, "no such file"},
		{"truncated", func(t *testing.T, obj string) { must(t, os.Truncate(obj, 2)) }, "does not match its hash"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ws, _ := newTest(t, Options{})
			writeTree(t, ws, spec{"a/": "", "a/1.txt": "one\n", "a/2.txt": "two\n", "a/3.txt": "three\n"}, nil)
			snap, err := c.Snapshot(ctx, abs(ws, "a"), "x", "s")
			must(t, err)
			for _, f := range []string{"1.txt", "2.txt", "3.txt"} {
				must(t, os.WriteFile(filepath.Join(ws, "a", f), []byte("changed "+f), 0o644))
			}
			mutated := state(t, ws)
			_, entries, err := c.Get(ctx, snap.ID)
			must(t, err)
			var obj string
			for _, e := range entries {
				if e.Path == "a/2.txt" {
					obj = c.objects.path(e.Object)
				}
			}
			tc.damage(t, obj)
			_, err = c.Rollback(ctx, snap.ID)
			if err == nil || !strings.Contains(err.Error(), "a/2.txt") || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want error naming a/2.txt and %q", err, tc.wantErr)
			}
			if d := diffStates(mutated, state(t, ws)); d != "" {
				t.Errorf("failed rollback changed the workspace:\n%s", d)
			}
			if err := c.Verify(ctx, true); !errors.Is(err, ErrTampered) {
				t.Errorf("verify: got %v, want ErrTampered", err)
			}
		})
	}
}

func TestRollbackUnknownID(t *testing.T) {
	c, _, _ := newTest(t, Options{})
	_, err := c.Rollback(context.Background(), 42)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "42") {
		t.Errorf("got %v, want ErrNotFound naming 42", err)
	}
	if _, err := c.Diff(context.Background(), 42); !errors.Is(err, ErrNotFound) {
		t.Errorf("diff: got %v, want ErrNotFound", err)
	}
}
