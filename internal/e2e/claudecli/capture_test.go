package claudecli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite internal/gateway/claudecode/testdata/cc2.1 from this run")

// captureDir is where -update writes the captured hook inputs.
const captureDir = "../../gateway/claudecode/testdata/cc2.1"

const notebook = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"execution_count":null,"outputs":[],"source":["print(1)"]}],
"metadata":{},"nbformat":4,"nbformat_minor":5}
`

const skill = `---
name: hello
description: Says hello. Use when asked to greet.
---
Say hello and stop.
`

// shellSkill runs a shell line when it loads (the !` + "`cmd`" + ` syntax).
const shellSkill = `---
name: shell
description: Shows the date. Use when asked for the date.
allowed-tools: Bash(echo:*)
---
The marker is: !` + "`echo skill-shell-ran`" + `
`

// captureScript is one tool call per model turn, covering the tools and
// outcomes whose hook inputs the gate must understand.
func captureScript(project, pageURL string) []Turn {
	bash := func(cmd string) Turn {
		return Turn{Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": cmd, "description": "run it"}}}}
	}
	one := func(name string, in map[string]any) Turn { return Turn{Tools: []ToolUse{{Name: name, Input: in}}} }
	return []Turn{
		bash("echo hello-from-bash"),
		bash("echo to-stderr >&2; echo partial; exit 3"),
		one("Read", map[string]any{"file_path": filepath.Join(project, "README.md")}),
		one("Read", map[string]any{"file_path": filepath.Join(project, "missing.txt")}),
		one("Write", map[string]any{"file_path": filepath.Join(project, "notes.txt"), "content": "first line\n"}),
		one("Edit", map[string]any{"file_path": filepath.Join(project, "notes.txt"), "old_string": "first", "new_string": "edited"}),
		one("Agent", map[string]any{"description": "Sub task", "prompt": "SUBAGENT-MARKER: echo from the sub-agent", "subagent_type": "general-purpose"}),
		one("WebFetch", map[string]any{"url": pageURL, "prompt": "What does the page say?"}),
		one("TaskCreate", map[string]any{"subject": "Write the notes", "description": "Write notes.txt", "activeForm": "Writing the notes"}),
		one("Skill", map[string]any{"skill": "hello"}),
		one("Skill", map[string]any{"skill": "shell"}),
		one("Read", map[string]any{"file_path": filepath.Join(project, "nb.ipynb")}),
		one("NotebookEdit", map[string]any{"notebook_path": filepath.Join(project, "nb.ipynb"), "cell_id": "c1", "new_source": "print(2)", "edit_mode": "replace"}),
	}
}

func TestCaptureHookEvents(t *testing.T) {
	project := t.TempDir()
	home := t.TempDir()
	for name, body := range map[string]string{
		"README.md":                     "# demo\n",
		"nb.ipynb":                      notebook,
		".claude/skills/hello/SKILL.md": skill,
		".claude/skills/shell/SKILL.md": shellSkill,
	} {
		p := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	events := DumpHooks(t, project)
	// Offline, WebFetch's domain check (a call to claude.ai) fails; the
	// setting skips it so the fetch reaches the loopback page.
	settings := readJSON(t, filepath.Join(project, ".claude", "settings.json"))
	settings["skipWebFetchPreflight"] = true
	WriteSettings(t, project, settings)
	f := NewFakeAPI(t)
	f.Page("/page", "<html><body><h1>Fake page</h1><p>hello from the loopback page</p></body></html>")
	tlsURL, caFile := f.ServeTLS(t)
	f.SetScript(
		Conversation{Match: "SUBAGENT-MARKER", Turns: []Turn{{Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo from-sub", "description": "sub"}}}}}},
		Conversation{Turns: captureScript(project, tlsURL+"/page")},
	)
	res := Run(t, f, Options{Dir: project, Home: home, Prompt: "Do the scripted steps.",
		Env: []string{"ENABLE_TOOL_SEARCH=false", "NODE_EXTRA_CA_CERTS=" + caFile}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d\nstderr:\n%s\nstdout:\n%s", res.ExitCode, res.Stderr, res.Stdout)
	}
	logged := map[string]bool{}
	for _, m := range f.Messages() {
		for _, b := range m.Blocks {
			if b.Type == "tool_result" && !logged[b.ToolUseID] {
				logged[b.ToolUseID] = true
				t.Logf("tool_result %s error=%v: %.200q", b.ToolUseID, b.IsError, b.ResultText())
			}
		}
	}
	evs := Events(t, events)
	seen := map[string]Event{}
	for _, ev := range evs {
		key := ev.Name
		if ev.ToolName != "" {
			key += "." + ev.ToolName
		}
		if ev.AgentID != "" && ev.ToolName != "" {
			key += ".subagent"
		}
		if _, ok := seen[key]; !ok {
			seen[key] = ev
		}
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	t.Logf("captured %d hook calls: %v; unknown API paths: %v", len(evs), keys, f.Unknown())
	for _, want := range []string{
		"PreToolUse.Bash", "PostToolUse.Bash", "PostToolUseFailure.Bash",
		"PreToolUse.Write", "PostToolUse.Edit", "PreToolUse.Agent", "PreToolUse.Bash.subagent",
	} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no %s hook call", want)
		}
	}
	if *update {
		writeCapture(t, seen, evs, f, project, home)
	}
}

// normaliser replaces the run's temporary paths, ports and ids with
// stable ones. Each distinct UUID gets its own placeholder, numbered in
// order of first sight, so which events share a session stays visible.
type normaliser struct {
	project, home, baseURL string
	uuids                  map[string]string
}

func (n *normaliser) apply(b []byte) []byte {
	s := string(b)
	s = strings.ReplaceAll(s, strings.TrimPrefix(n.baseURL, "http://"), "127.0.0.1:8787")
	s = tlsRe.ReplaceAllString(s, "https://127.0.0.1:8443")
	s = strings.ReplaceAll(s, strings.ReplaceAll(n.project, "/", "-"), "-home-dev-project")
	s = strings.ReplaceAll(s, n.project, "/home/dev/project")
	s = strings.ReplaceAll(s, n.home, "/home/dev")
	s = uuidRe.ReplaceAllStringFunc(s, func(u string) string {
		if r, ok := n.uuids[u]; ok {
			return r
		}
		r := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(n.uuids)+1)
		n.uuids[u] = r
		return r
	})
	return []byte(tmpRe.ReplaceAllString(s, "/tmp/claude-dev"))
}

var (
	uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tlsRe  = regexp.MustCompile(`https://127\.0\.0\.1:[0-9]+`)
	tmpRe  = regexp.MustCompile(`/tmp/Test[A-Za-z0-9_]+/[0-9]+`)
)

func writeCapture(t *testing.T, seen map[string]Event, all []Event, f *FakeAPI, project, home string) {
	t.Helper()
	norm := &normaliser{project: project, home: home, baseURL: f.URL, uuids: map[string]string{}}
	if err := os.MkdirAll(captureDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var all1 bytes.Buffer
	for _, ev := range all {
		var c bytes.Buffer
		if err := json.Compact(&c, norm.apply(ev.Raw)); err != nil {
			t.Fatal(err)
		}
		all1.Write(c.Bytes())
		all1.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(captureDir, "events.jsonl"), all1.Bytes(), 0o644); err != nil { //nolint:gosec // testdata
		t.Fatal(err)
	}
	pretty := func(b []byte) []byte {
		var out bytes.Buffer
		if err := json.Indent(&out, norm.apply(b), "", "  "); err != nil {
			t.Fatalf("indent: %v\n%s", err, b)
		}
		out.WriteByte('\n')
		return out.Bytes()
	}
	for k, ev := range seen {
		if err := os.WriteFile(filepath.Join(captureDir, k+".json"), pretty(ev.Raw), 0o644); err != nil { //nolint:gosec // testdata
			t.Fatal(err)
		}
	}
	var tools []map[string]any
	for _, raw := range f.Tools() {
		var tl map[string]any
		if err := json.Unmarshal(raw, &tl); err != nil {
			t.Fatal(err)
		}
		if d, ok := tl["description"].(string); ok {
			tl["description"], _, _ = strings.Cut(d, "\n")
		}
		tools = append(tools, tl)
	}
	b, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(norm.apply(b), '\n')
	if err := os.WriteFile(filepath.Join(captureDir, "tools.json"), b, 0o644); err != nil { //nolint:gosec // testdata
		t.Fatal(err)
	}
	t.Logf("wrote %d files to %s", len(seen)+2, captureDir)
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
