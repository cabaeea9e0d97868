package claudecode

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkPreToolUse is one whole hook call in process: find and open
// the workspace, build the gate, judge, audit, close. What a hook process
// adds on top is process start and package initialisation (see
// TestHookColdStartLatency in cmd/parallax).
func BenchmarkPreToolUse(b *testing.B) {
	root, home := newWorkspace(b)
	writeFile(b, filepath.Join(root, "src", "main.go"), "package main\n")
	in, err := ParseInput(benchInput(b, root, "Read", `{"file_path":"src/main.go"}`))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if out := PreToolUse(ctx, Options{Home: home}, in); out.Decision != "" {
			b.Fatalf("got %+v", out)
		}
	}
}

// BenchmarkMap is the translation of a Bash call alone.
func BenchmarkMap(b *testing.B) {
	in, err := ParseInput(benchInput(b, "/w/src", "Bash", `{"command":"grep -rn TODO . | sort | head","timeout":60000}`))
	if err != nil {
		b.Fatal(err)
	}
	env := Env{Home: "/home/dev", Workspace: "/w"}
	for b.Loop() {
		if _, err := Map(in, env); err != nil {
			b.Fatal(err)
		}
	}
}

func benchInput(b *testing.B, cwd, tool, input string) []byte {
	b.Helper()
	return []byte(`{"session_id":"bench","cwd":"` + cwd + `","hook_event_name":"PreToolUse","tool_name":"` + tool +
		`","tool_input":` + input + `,"tool_use_id":"toolu_1"}`)
}
