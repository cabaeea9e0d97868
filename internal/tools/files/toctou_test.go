//go:build linux

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/tools"
)

// A swap is something an attacker does to the file system after the gate
// decided on a path.
type swap struct {
	name   string
	target string // the path the action names, relative to the workspace
	do     func(t *testing.T, ws, out string)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Swaps of a path that existed at decision (ws/sub/target.txt).
var existingSwaps = []swap{
	{"final replaced by a symlink out", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.Remove(filepath.Join(ws, "sub/target.txt")))
		must(t, os.Symlink(filepath.Join(out, "target.txt"), filepath.Join(ws, "sub/target.txt")))
	}},
	{"file replaced by another file", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.WriteFile(filepath.Join(ws, "sub/other"), []byte("other"), 0o644))
		must(t, os.Rename(filepath.Join(ws, "sub/other"), filepath.Join(ws, "sub/target.txt")))
	}},
	{"file replaced by a directory", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.Remove(filepath.Join(ws, "sub/target.txt")))
		must(t, os.Mkdir(filepath.Join(ws, "sub/target.txt"), 0o755))
	}},
	{"ancestor replaced by a symlink out", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.old")))
		must(t, os.Symlink(out, filepath.Join(ws, "sub")))
	}},
	{"ancestor replaced by another directory", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.old")))
		must(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, "sub/target.txt"), []byte("planted"), 0o644))
	}},
	{"file removed", "sub/target.txt", func(t *testing.T, ws, out string) {
		must(t, os.Remove(filepath.Join(ws, "sub/target.txt")))
	}},
}

// Swaps of a path that did not exist at decision.
var absentSwaps = []swap{
	{"symlink planted at the name", "sub/new.txt", func(t *testing.T, ws, out string) {
		must(t, os.Symlink(filepath.Join(out, "target.txt"), filepath.Join(ws, "sub/new.txt")))
	}},
	{"missing ancestor planted as a symlink", "new/dir/new.txt", func(t *testing.T, ws, out string) {
		must(t, os.Symlink(out, filepath.Join(ws, "new")))
	}},
	{"missing ancestor created", "new/dir/new.txt", func(t *testing.T, ws, out string) {
		must(t, os.MkdirAll(filepath.Join(ws, "new/dir"), 0o755))
	}},
}

// actionFor builds an action on path p (other paths go to spare).
type actionFor func(p, spare string) (string, map[string]any)

var onExisting = map[string]actionFor{
	"read": func(p, _ string) (string, map[string]any) { return "read_file", map[string]any{"path": p} },
	"write": func(p, _ string) (string, map[string]any) {
		return "write_file", map[string]any{"path": p, "content": "pwned"}
	},
	"append": func(p, _ string) (string, map[string]any) {
		return "write_file", map[string]any{"path": p, "content": "pwned", "append": true}
	},
	"edit": func(p, _ string) (string, map[string]any) {
		return "edit_file", map[string]any{"path": p, "old": "s", "new": "pwned"}
	},
	"delete": func(p, _ string) (string, map[string]any) { return "delete_file", map[string]any{"path": p} },
	"move source": func(p, s string) (string, map[string]any) {
		return "move_file", map[string]any{"source": p, "destination": s}
	},
	"copy source": func(p, s string) (string, map[string]any) {
		return "copy_file", map[string]any{"source": p, "destination": s}
	},
	"search": func(p, _ string) (string, map[string]any) {
		return "search_files", map[string]any{"path": p, "pattern": "s"}
	},
}

var onAbsent = map[string]actionFor{
	"write": func(p, _ string) (string, map[string]any) {
		return "write_file", map[string]any{"path": p, "content": "pwned"}
	},
	"append": func(p, _ string) (string, map[string]any) {
		return "write_file", map[string]any{"path": p, "content": "pwned", "append": true}
	},
	"mkdir": func(p, _ string) (string, map[string]any) { return "create_directory", map[string]any{"path": p} },
	"copy dest": func(p, s string) (string, map[string]any) {
		return "copy_file", map[string]any{"source": s, "destination": p}
	},
	"move dest": func(p, s string) (string, map[string]any) {
		return "move_file", map[string]any{"source": s, "destination": p}
	},
}

// TestTOCTOU swaps paths after the decision, both before Execute
// re-resolves and between the re-resolution and the descriptor walk;
// every action must refuse with path_changed and leave the outside alone.
func TestTOCTOU(t *testing.T) {
	for _, phase := range []string{"before execute", "after re-resolution"} {
		for _, set := range []struct {
			swaps   []swap
			actions map[string]actionFor
		}{{existingSwaps, onExisting}, {absentSwaps, onAbsent}} {
			for _, sw := range set.swaps {
				for an, mk := range set.actions {
					t.Run(phase+"/"+sw.name+"/"+an, func(t *testing.T) {
						runSwap(t, phase, sw, mk)
					})
				}
			}
		}
	}
}

func runSwap(t *testing.T, phase string, sw swap, mk actionFor) {
	root := t.TempDir()
	ws, out := filepath.Join(root, "ws"), filepath.Join(root, "out")
	writeFile(t, filepath.Join(ws, "sub/target.txt"), "safe", 0o644)
	writeFile(t, filepath.Join(ws, "spare.txt"), "spare", 0o644)
	writeFile(t, filepath.Join(out, "target.txt"), "secret", 0o600)
	target, spare := filepath.Join(ws, sw.target), filepath.Join(ws, "spare.txt")
	if strings.Contains(sw.target, "new") {
		spare = filepath.Join(ws, "sub/target.txt") // absent swaps move or copy an existing file
	}
	typ, payload := mk(target, spare)
	a := mkAction(t, typ, payload)
	plan := prepare(t, a)
	if phase == "before execute" {
		sw.do(t, ws, out)
	} else {
		hookAfterVerify = func() { hookAfterVerify = nil; sw.do(t, ws, out) }
		defer func() { hookAfterVerify = nil }()
	}
	res, err := execute(a, plan)
	wantCode(t, res, err, tools.CodePathChanged)
	if strings.Contains(res.Output, "secret") || strings.Contains(res.Error, "secret") {
		t.Fatalf("outside content leaked: %+v", res)
	}
	ents, err := os.ReadDir(out)
	must(t, err)
	if len(ents) != 1 || readFile(t, filepath.Join(out, "target.txt")) != "secret" {
		t.Fatalf("outside changed: %d entries", len(ents))
	}
	if !exists(spare) {
		t.Fatal("spare file was moved despite the refusal")
	}
}
