package claudecode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/internal/workspace"
)

// newWorkspace creates a workspace with parallax init's code (default
// preset) and a separate home directory.
func newWorkspace(t testing.TB) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	if _, err := workspace.Init(context.Background(), root, workspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	return root, home
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hookJSON is a hook input as Claude Code writes it.
func hookJSON(t *testing.T, event, session, cwd, tool string, input, response any) []byte {
	t.Helper()
	m := map[string]any{
		"session_id":      session,
		"transcript_path": "/tmp/transcripts/" + session + ".jsonl",
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": event,
		"tool_name":       tool,
		"tool_input":      input,
		"tool_use_id":     "toolu_01ABC",
	}
	if response != nil {
		m["tool_response"] = response
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, b []byte) *Input {
	t.Helper()
	in, err := ParseInput(b)
	if err != nil {
		t.Fatalf("ParseInput: %v", err)
	}
	return in
}

// A secret the DLP scanners find (an AWS secret access key assignment).
const testSecret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"
