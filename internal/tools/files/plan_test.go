//go:build linux

package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/action"

	"github.com/parallax/parallax/internal/tools"
)

func TestPlanMismatchRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, "A", 0o644)
	writeFile(t, b, "B", 0o644)
	readA := mkAction(t, "read_file", map[string]any{"path": a})
	readB := mkAction(t, "read_file", map[string]any{"path": b})
	writeA := mkAction(t, "write_file", map[string]any{"path": a, "content": "x"})
	cases := []struct {
		name string
		call tools.Call
		code string
	}{
		{"no plan", tools.Call{Action: readA}, tools.CodeBadPlan},
		{"plan of another path", tools.Call{Action: readA, Plan: prepare(t, readB)}, tools.CodeBadPlan},
		{"plan of another type", tools.Call{Action: writeA, Plan: prepare(t, readA)}, tools.CodeBadPlan},
		{"not a file action", tools.Call{Action: mkAction(t, "execute_command", map[string]any{"command": "true"})}, tools.CodeUnsupported},
		{"no action", tools.Call{}, tools.CodeBadInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := New(Config{}).Execute(context.Background(), c.call)
			wantCode(t, res, err, c.code)
			if got := readFile(t, a); got != "A" {
				t.Fatalf("file changed: %q", got)
			}
		})
	}
}

func TestPrepareResolves(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "real/f"), "x", 0o644)
	must(t, os.Symlink("real", filepath.Join(dir, "rel")))
	must(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "abs")))
	must(t, os.Symlink("real/../real/f", filepath.Join(dir, "dots")))
	must(t, os.Symlink("loop", filepath.Join(dir, "loop")))
	cases := []struct {
		name, path, want string
		exists           bool
		code             string
	}{
		{"relative link", "rel/f", "real/f", true, ""},
		{"absolute link", "abs/f", "real/f", true, ""},
		{"dot-dot in a link", "dots", "real/f", true, ""},
		{"missing below a link", "rel/new/g", "real/new/g", false, ""},
		{"link loop", "loop/f", "", false, tools.CodeBadInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Prepare(mkAction(t, "read_file", map[string]any{"path": filepath.Join(dir, c.path)}))
			if got := tools.CodeOf(err); got != c.code {
				t.Fatalf("code: got %q, want %q (%v)", got, c.code, err)
			}
			if err != nil {
				return
			}
			if got, want := p.Paths[0].Resolved, filepath.Join(dir, c.want); got != want {
				t.Fatalf("resolved: got %s, want %s", got, want)
			}
			if got := p.Paths[0].Exists(); got != c.exists {
				t.Fatalf("exists: got %v, want %v", got, c.exists)
			}
		})
	}
}

func BenchmarkReadSmall(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "small.txt")
	writeFile(b, p, "hello, world\nsecond line\n", 0o644)
	e := New(Config{})
	a := mkAction(b, "read_file", map[string]any{"path": p})
	ctx := context.Background()
	for b.Loop() {
		plan, err := Prepare(a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Execute(ctx, tools.Call{Action: a, Plan: plan}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteSmall(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "small.txt")
	e := New(Config{})
	a := mkAction(b, "write_file", map[string]any{"path": p, "content": "hello, world\n"})
	ctx := context.Background()
	for b.Loop() {
		plan, err := Prepare(a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Execute(ctx, tools.Call{Action: a, Plan: plan}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPrepareRefuses(t *testing.T) {
	cases := []struct {
		name string
		act  *action.Action
		code string
	}{
		{"nil action", nil, tools.CodeBadInput},
		{"relative path", &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: "rel/a"}}, tools.CodeBadInput},
		{"unclean path", &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: "/a/../b"}}, tools.CodeBadInput},
		{"not a file action", &action.Action{Type: action.ExecuteCommand, Payload: &action.ExecuteCommandPayload{Command: "true"}}, tools.CodeUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Prepare(c.act)
			if got := tools.CodeOf(err); got != c.code || p != nil {
				t.Fatalf("got %v, %q; want no plan and %q", p, got, c.code)
			}
		})
	}
}
