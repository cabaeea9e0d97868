package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
)

// journalLines is what the workspace's taint journal holds: its lines, up
// to the room written ahead.
func journalLines(t *testing.T, root string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(workspace.TaintJournalPath(root))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if l != "" && json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// A result reaching the model while the workspace cannot be opened leaves
// its session critical in the journal, secret or not: what the gate would
// have added (labels of the files read) is unknown.
func TestUnopenableWorkspaceCannotLeaveAResultUntainted(t *testing.T) {
	for _, c := range []struct{ name, stdout string }{
		{"clean", "main.go\nnotes.txt"},
		{"secret", "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := newWorkspace(t)
			writeFile(t, workspace.DBPath(root), strings.Repeat("not a database ", 400))
			in := parse(t, hookJSON(t, EventPostToolUse, "s1", root, "Bash", map[string]any{"command": "cat notes.txt"},
				map[string]any{"stdout": c.stdout, "stderr": ""}))
			if err := PostToolUse(context.Background(), Options{Home: home}, in); err == nil {
				t.Fatal("PostToolUse on a workspace that does not open: got nil, want an error")
			}
			critical := false
			for _, l := range journalLines(t, root) {
				critical = critical || l["session"] == "s1" && l["level"] == float64(ifc.Critical)
			}
			if !critical {
				t.Errorf("journal %v: want s1 at critical", journalLines(t, root))
			}
		})
	}
}

// A taint that can be written nowhere stops the session: the answer is
// continue false with the reason (status 0, so that Claude Code reads
// it), never a plain error Claude Code would only show.
func TestUnrecordedTaintCannotLetTheSessionContinue(t *testing.T) {
	var out bytes.Buffer
	err := postAnswer(&out, errors.Join(errors.New("other"), ErrTaintUnrecorded))
	var got StopResponse
	if jerr := json.Unmarshal(out.Bytes(), &got); err != nil || jerr != nil || got.Continue || got.Decision != "block" ||
		!strings.Contains(got.StopReason, "stopped this session") || got.Reason != got.StopReason {
		t.Errorf("got %q (%v), want continue false, decision block and the reason", out.String(), err)
	}
	out.Reset()
	if err := postAnswer(&out, errors.New("not classified")); err == nil || out.Len() != 0 {
		t.Errorf("another error: got %v and %q, want the error and no JSON", err, out.String())
	}
}
