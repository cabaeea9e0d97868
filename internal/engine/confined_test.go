package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/verdict"
)

// confinedEnv is a pipeline whose file operations run in helpers the
// kernel confines to their plan (the production configuration).
func confinedEnv(t *testing.T) *env {
	t.Helper()
	if err := sandbox.Support().Usable(); err != nil {
		t.Skip(err)
	}
	self, err := sandbox.Self()
	if err != nil {
		t.Fatal(err)
	}
	// Through Options.Tools, as the runtime wires them: the gate knows
	// that its walks are judged entry by entry (shield.Config.WalksJudged).
	return newEnv(t, envOptions{tools: &ToolsConfig{ConfineFiles: self}})
}

// Every file operation works in its confined helper, as it does in the
// engine: the files on disk are what the calls asked for, a walk still
// withholds what the guard seals, and a key is still never read.
func TestConfinedFileOperationsWork(t *testing.T) {
	e := confinedEnv(t)
	ws := e.root
	p := func(rel string) string { return filepath.Join(ws, rel) }
	writeFile(t, p("src/main.go"), "package main\n// hello\n")
	calls := []struct {
		typ     string
		payload map[string]any
		output  string // the result holds it
	}{
		{"write_file", map[string]any{"path": p("notes/a.txt"), "content": "one\n"}, ""},
		{"write_file", map[string]any{"path": p("notes/a.txt"), "content": "two\n", "append": true}, ""},
		{"read_file", map[string]any{"path": p("notes/a.txt")}, "two"},
		{"edit_file", map[string]any{"path": p("notes/a.txt"), "old": "one", "new": "uno"}, ""},
		{"create_directory", map[string]any{"path": p("build/out")}, ""},
		{"copy_file", map[string]any{"source": p("notes/a.txt"), "destination": p("build/out/a.txt")}, ""},
		{"copy_file", map[string]any{"source": p("src"), "destination": p("src2")}, ""},
		{"move_file", map[string]any{"source": p("build/out/a.txt"), "destination": p("notes/b.txt")}, ""},
		{"list_directory", map[string]any{"path": ws, "recursive": true}, "main.go"},
		{"search_files", map[string]any{"path": ws, "pattern": "hello"}, "src/main.go"},
		{"delete_file", map[string]any{"path": p("src2"), "recursive": true}, ""},
		{"delete_file", map[string]any{"path": p("notes/b.txt")}, ""},
	}
	for _, c := range calls {
		out := e.handle("s1", c.typ, c.payload)
		if out.Verdict.Decision != verdict.Allow || out.Result.IsError || !strings.Contains(out.Result.Output, c.output) {
			t.Fatalf("%s %v: %+v", c.typ, c.payload, out)
		}
	}
	if b, _ := os.ReadFile(p("notes/a.txt")); string(b) != "uno\ntwo\n" {
		t.Errorf("notes/a.txt holds %q", b)
	}
	for _, gone := range []string{"src2", "notes/b.txt", "build/out/a.txt"} {
		if _, err := os.Lstat(p(gone)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want it gone", gone, err)
		}
	}
	if st, err := os.Stat(p("build/out")); err != nil || !st.IsDir() {
		t.Errorf("build/out: %v", err)
	}
	token, err := os.ReadFile(filepath.Join(ws, ".parallax", "api.token"))
	if err != nil {
		t.Fatal(err)
	}
	out := e.handle("s1", "search_files", map[string]any{"path": ws, "pattern": strings.TrimSpace(string(token))})
	if strings.Contains(out.Result.Output, strings.TrimSpace(string(token))) || !strings.Contains(out.Result.Output, "no matches") {
		t.Errorf("a search for the API token: %q", out.Result.Output)
	}
	writeFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), "KEY-confined\n")
	if out := e.handle("s1", "read_file", map[string]any{"path": filepath.Join(e.home, ".ssh", "id_rsa")}); out.Executed ||
		strings.Contains(out.Result.Output, "KEY-confined") {
		t.Errorf("key read: %+v", out)
	}
}

// An answer that does not prove the helper's confinement is refused,
// whatever it says: a helper started from a program that does not
// confine itself (here a script answering at once) runs nothing the
// engine believes.
func TestConfinedExecutorRefusesAnUnconfinedAnswer(t *testing.T) {
	ws := t.TempDir()
	f := filepath.Join(ws, "a.txt")
	writeFile(t, f, "a\n")
	fake := filepath.Join(t.TempDir(), "helper")
	writeFile(t, fake, "#!/bin/sh\ncat >/dev/null\necho '{\"result\":{\"Output\":\"unconfined\"}}'\n")
	if err := os.Chmod(fake, 0o700); err != nil {
		t.Fatal(err)
	}
	act := &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}
	fx := ToolExecutors(ToolsConfig{ConfineFiles: fake})[action.ReadFile]
	plan, err := fx.(Preparer).Prepare(t.Context(), act)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fx.Execute(t.Context(), Call{Action: act, Plan: plan})
	if err == nil || strings.Contains(res.Output, "unconfined") || !strings.Contains(err.Error(), "sandbox_refused") {
		t.Fatalf("got %+v, %v; want sandbox_refused", res, err)
	}
}

// BenchmarkFileConfinement is the cost of confining a file operation:
// a read and a write of a small file through the files executor (plan
// and execution), in the engine and in a confined helper.
//
//	go test ./internal/engine -run '^$' -bench FileConfinement -count 5
func BenchmarkFileConfinement(b *testing.B) {
	if err := sandbox.Support().Usable(); err != nil {
		b.Skip(err)
	}
	self, err := sandbox.Self()
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	f := filepath.Join(ws, "small.txt")
	if err := os.WriteFile(f, []byte("a small file\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	read := &action.Action{Type: action.ReadFile, Payload: &action.ReadFilePayload{Path: f}}
	write := &action.Action{Type: action.WriteFile, Payload: &action.WriteFilePayload{Path: f, Content: "a small file\n"}}
	for _, mode := range []struct {
		name string
		self string
	}{{"engine", ""}, {"confined", self}} {
		exs := ToolExecutors(ToolsConfig{ConfineFiles: mode.self})
		for _, act := range []*action.Action{read, write} {
			b.Run(mode.name+"/"+string(act.Type), func(b *testing.B) {
				ex := exs[act.Type]
				for b.Loop() {
					plan, err := ex.(Preparer).Prepare(b.Context(), act)
					if err != nil {
						b.Fatal(err)
					}
					if res, err := ex.Execute(b.Context(), Call{Action: act, Plan: plan}); err != nil || res.IsError {
						b.Fatal(res, err)
					}
				}
			})
		}
	}
}
