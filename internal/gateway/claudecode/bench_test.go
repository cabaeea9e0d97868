package claudecode

import (
	"context"
	"path/filepath"
	"strconv"
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

// BenchmarkPostToolUse is one PostToolUse in process, of a clean result
// and of one holding a secret (whose raise is journalled before the
// workspace is opened, then written to the database).
func BenchmarkPostToolUse(b *testing.B) {
	for _, c := range []struct{ name, stdout string }{
		{"clean", "main.go\nnotes.txt"},
		{"secret", "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"},
	} {
		b.Run(c.name, func(b *testing.B) {
			root, home := newWorkspace(b)
			raw := []byte(`{"session_id":"bench","cwd":"` + root + `","hook_event_name":"PostToolUse","tool_name":"Bash",` +
				`"tool_input":{"command":"cat notes.txt"},"tool_response":{"stdout":` + strconv.Quote(c.stdout) +
				`,"stderr":""},"tool_use_id":"toolu_1"}`)
			in, err := ParseInput(raw)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				if err := PostToolUse(ctx, Options{Home: home}, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
