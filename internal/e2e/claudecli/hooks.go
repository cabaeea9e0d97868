package claudecli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// hookEvents are the hook events Claude Code 2.1.332 knows (the
// hook_event_name values in its binary).
var hookEvents = [...]string{
	"ConfigChange", "CwdChanged", "DirectoryAdded", "Elicitation", "ElicitationResult",
	"FileChanged", "InstructionsLoaded", "MessageDisplay", "Notification",
	"PermissionDenied", "PermissionRequest", "PostCompact", "PostModelSwitch",
	"PostToolBatch", "PostToolUse", "PostToolUseFailure", "PreCompact",
	"PreModelSwitch", "PreSkillShellCommand", "PreToolUse", "SessionEnd",
	"SessionStart", "Setup", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
	"TaskCompleted", "TaskCreated", "TeammateIdle", "UserPromptExpansion",
	"UserPromptSubmit", "WorktreeCreate", "WorktreeRemove",
}

// dumpScript appends its stdin, one file per call, to the directory in
// its first argument; the name sorts by arrival.
const dumpScript = `#!/bin/sh
f=$(mktemp "$1/$(date +%s%N).XXXXXX") && cat > "$f"
exit 0
`

// DumpHooks registers a hook that records its stdin for every event in
// hookEvents in project/.claude/settings.json (replacing the file) and
// returns the directory the calls are recorded in (read it with Events).
func DumpHooks(tb testing.TB, project string) string {
	tb.Helper()
	base := tb.TempDir()
	dir := filepath.Join(base, "events")
	script := filepath.Join(base, "dump.sh")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(dumpScript), 0o700); err != nil { //nolint:gosec // a test hook must be executable
		tb.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range hookEvents {
		hooks[ev] = []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": script + " " + dir},
		}}}
	}
	WriteSettings(tb, project, map[string]any{"hooks": hooks})
	return dir
}

// WriteSettings writes v as project/.claude/settings.json.
func WriteSettings(tb testing.TB, project string, v any) {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".claude", "settings.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Event is one recorded hook call: its stdin as sent, plus the fields
// every event has.
type Event struct {
	Raw       json.RawMessage
	Name      string `json:"hook_event_name"`
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	AgentID   string `json:"agent_id"`
}

// Events reads the calls DumpHooks recorded in dir, in arrival order.
func Events(tb testing.TB, dir string) []Event {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []Event
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			tb.Fatal(err)
		}
		var ev Event
		if err := json.Unmarshal(b, &ev); err != nil {
			tb.Fatalf("hook input %s: %v\n%s", n, err, b)
		}
		ev.Raw = b
		out = append(out, ev)
	}
	return out
}
