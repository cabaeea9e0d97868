package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

func TestMap(t *testing.T) {
	const ws, home = "/w", "/home/dev"
	for _, c := range []struct {
		name, tool, cwd string
		input           string
		typ             action.Type
		payload         string
		files, unknown  []string
	}{
		{"bash in the workspace", "Bash", ws,
			`{"command":"go test ./...","description":"Run tests","timeout":120000,"run_in_background":false}`,
			action.ExecuteCommand, `{"command":"go test ./...","timeout_seconds":120}`, nil, nil},
		{"bash elsewhere says where it runs", "Bash", "/w/sub dir",
			`{"command":"rm a.txt","timeout":1500}`,
			action.ExecuteCommand, `{"command":"cd '/w/sub dir' \u0026\u0026 rm a.txt","timeout_seconds":2}`, nil, nil},
		{"bash sandbox switch is unknown", "Bash", ws,
			`{"command":"ls","dangerouslyDisableSandbox":true}`,
			action.ExecuteCommand, `{"command":"ls"}`, nil, []string{"dangerouslyDisableSandbox"}},
		{"read relative", "Read", "/w/src",
			`{"file_path":"../README.md","offset":10,"limit":50}`,
			action.ReadFile, `{"path":"/w/README.md","offset":10,"limit":50}`, nil, nil},
		{"read home", "Read", ws, `{"file_path":"~/.ssh/id_rsa"}`,
			action.ReadFile, `{"path":"/home/dev/.ssh/id_rsa"}`, nil, nil},
		{"read pdf pages", "Read", ws, `{"file_path":"/w/a.pdf","pages":"1-3"}`,
			action.ReadFile, `{"path":"/w/a.pdf"}`, nil, nil},
		{"write", "Write", ws, `{"file_path":"/w/new.go","content":"package x\n"}`,
			action.WriteFile, `{"path":"/w/new.go","content":"package x\n"}`, []string{"/w/new.go"}, nil},
		{"write empty content", "Write", ws, `{"file_path":"empty.txt","content":""}`,
			action.WriteFile, `{"path":"/w/empty.txt","content":""}`, []string{"/w/empty.txt"}, nil},
		{"edit", "Edit", ws, `{"file_path":"/w/a.go","old_string":"x","new_string":"y","replace_all":true}`,
			action.EditFile, `{"path":"/w/a.go","old":"x","new":"y"}`, []string{"/w/a.go"}, nil},
		{"multiedit", "MultiEdit", ws,
			`{"file_path":"/w/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d","replace_all":true,"extra":1}]}`,
			action.EditFile, `{"path":"/w/a.go","old":"a\nc","new":"b\nd"}`, []string{"/w/a.go"}, []string{"edits[1].extra"}},
		{"notebook edit", "NotebookEdit", ws,
			`{"notebook_path":"/w/n.ipynb","cell_id":"c1","new_source":"print(1)","cell_type":"code","edit_mode":"replace"}`,
			action.EditFile, `{"path":"/w/n.ipynb","old":"","new":"print(1)"}`, []string{"/w/n.ipynb"}, nil},
		{"notebook read", "NotebookRead", ws, `{"notebook_path":"n.ipynb","cell_id":"c1"}`,
			action.ReadFile, `{"path":"/w/n.ipynb"}`, nil, nil},
		{"glob default path", "Glob", "/w/src", `{"pattern":"**/*.go"}`,
			action.SearchFiles, `{"path":"/w/src","pattern":"**/*.go"}`, nil, nil},
		{"glob climbing out", "Glob", ws, `{"pattern":"../../home/dev/.ssh/*","path":"/w"}`,
			action.SearchFiles, `{"path":"/home/dev/.ssh","pattern":"../../home/dev/.ssh/*"}`, nil, nil},
		{"glob absolute", "Glob", ws, `{"pattern":"/etc/**/*.conf"}`,
			action.SearchFiles, `{"path":"/etc","pattern":"/etc/**/*.conf"}`, nil, nil},
		{"grep", "Grep", ws,
			`{"pattern":"TODO","path":"src","glob":"*.go","output_mode":"content","-n":true,"-C":2,"head_limit":20}`,
			action.SearchFiles, `{"path":"/w/src","pattern":"TODO"}`, nil, nil},
		{"grep unknown flag", "Grep", ws, `{"pattern":"x","-z":true}`,
			action.SearchFiles, `{"path":"/w","pattern":"x"}`, nil, []string{"-z"}},
		{"ls", "LS", ws, `{"path":"/w/src","ignore":["*.tmp"]}`,
			action.ListDirectory, `{"path":"/w/src"}`, nil, nil},
		{"webfetch", "WebFetch", ws, `{"url":"https://go.dev/doc","prompt":"summarise"}`,
			action.HTTPRequest, `{"method":"GET","url":"https://go.dev/doc"}`, nil, nil},
		{"websearch", "WebSearch", ws, `{"query":"go generics","allowed_domains":["go.dev"]}`,
			"web_search", `{"query":"go generics"}`, nil, nil},
		{"task", "Task", ws, `{"description":"Find tests","prompt":"List the test files","subagent_type":"general-purpose"}`,
			action.CreateAgent, `{"task":"[general-purpose] Find tests\n\nList the test files"}`, nil, nil},
		{"agent (2.1)", "Agent", ws, `{"description":"Sub task","prompt":"echo from the sub-agent","subagent_type":"general-purpose","effort":"high","run_in_background":true,"model":"haiku"}`,
			action.CreateAgent, `{"task":"[general-purpose] Sub task\n\necho from the sub-agent","model":"haiku"}`, nil, nil},
		{"agent in the cloud is unknown", "Agent", ws, `{"description":"d","prompt":"p","isolation":"remote","mode":"bypassPermissions"}`,
			action.CreateAgent, `{"task":"d\n\np"}`, nil, []string{"isolation", "mode"}},
		{"read large", "Read", ws, `{"file_path":"/w/big.log","allow_large":true}`,
			action.ReadFile, `{"path":"/w/big.log"}`, nil, nil},
		{"webfetch offset", "WebFetch", ws, `{"url":"https://go.dev/doc","prompt":"p","offset":2}`,
			action.HTTPRequest, `{"method":"GET","url":"https://go.dev/doc"}`, nil, nil},
		{"cron create", "CronCreate", ws, `{"cron":"*/5 * * * *","prompt":"check the build","recurring":true,"durable":false}`,
			action.CreateSchedule, `{"cron":"*/5 * * * *","task":"check the build"}`, nil, nil},
		{"cron delete", "CronDelete", ws, `{"id":"c1"}`, action.DeleteSchedule, `{"id":"c1"}`, nil, nil},
		{"cron list", "CronList", ws, `{}`, action.ListSchedules, `{}`, nil, nil},
		{"wake-up", "ScheduleWakeup", ws, `{"delaySeconds":120,"reason":"wait for CI","prompt":"/loop check CI","noop":false}`,
			action.CreateSchedule, `{"cron":"after 120 s","task":"/loop check CI"}`, nil, nil},
		{"workflow script", "Workflow", ws, `{"script":"export const meta = {}; agent('rm -rf ~')","args":{"q":1},"title":"t"}`,
			action.CreateAgent, `{"task":"script: export const meta = {}; agent('rm -rf ~')\nargs: {\"q\":1}"}`, nil, nil},
		{"workflow by name", "Workflow", ws, `{"name":"research"}`,
			action.CreateAgent, `{"task":"name: research"}`, nil, nil},
		{"send message", "SendMessage", ws, `{"to":"main","message":"done: tests pass","summary":"status"}`,
			action.AgentMessage, `{"agent":"main","message":"done: tests pass"}`, nil, nil},
		{"monitor command", "Monitor", "/w/sub", `{"description":"tail","timeout_ms":60000,"command":"tail -f log.txt"}`,
			action.ExecuteCommand, `{"command":"cd '/w/sub' \u0026\u0026 tail -f log.txt"}`, nil, nil},
		{"monitor websocket", "Monitor", ws, `{"description":"feed","timeout_ms":1000,"ws":{"url":"wss://feed.example/x","protocols":["v1"]}}`,
			action.HTTPRequest, `{"method":"GET","url":"wss://feed.example/x"}`, nil, nil},
		{"push notification", "PushNotification", ws, `{"message":"build done","status":"proactive"}`,
			action.SendMessage, `{"channel":"claude-code-push","body":"build done"}`, nil, nil},
		{"feedback", "SendFeedback", ws, `{"type":"bug","title":"crash","details":"it crashed","area":"cli"}`,
			action.SendMessage, `{"channel":"anthropic-feedback","body":"crash\n\nit crashed"}`, nil, nil},
		{"mcp resource", "ReadMcpResourceTool", ws, `{"server":"docs","uri":"file:///x"}`,
			action.MCPCall, `{"server":"docs","tool":"resources/read","arguments":{"uri":"file:///x"}}`, nil, nil},
		{"mcp", "mcp__github__create_issue", ws, `{"repo":"a/b","title":"x","labels":["bug"]}`,
			action.MCPCall, `{"server":"github","tool":"create_issue","arguments":{"repo":"a/b","title":"x","labels":["bug"]}}`, nil, nil},
		{"mcp server with underscore", "mcp__my_server__do__it", ws, `{}`,
			action.MCPCall, `{"server":"my_server","tool":"do__it","arguments":{}}`, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := parse(t, hookJSON(t, EventPreToolUse, "s1", c.cwd, c.tool, json.RawMessage(c.input), nil))
			m, err := Map(in, Env{Home: home, Workspace: ws})
			if err != nil {
				t.Fatalf("Map: %v", err)
			}
			if m.Type != c.typ || string(m.Payload) != c.payload {
				t.Errorf("got %s %s, want %s %s", m.Type, m.Payload, c.typ, c.payload)
			}
			if !slices.Equal(m.Files, c.files) || !slices.Equal(m.Unknown, c.unknown) {
				t.Errorf("files %v unknown %v, want %v %v", m.Files, m.Unknown, c.files, c.unknown)
			}
			// What the hook hands the gate must pass the catalog's strict decoder.
			if _, err := action.Decode(string(m.Type), m.Payload); err != nil {
				t.Errorf("the catalog refuses the mapped payload: %v", err)
			}
		})
	}
}

func TestMapSpecialTools(t *testing.T) {
	env := Env{Home: "/home/dev", Workspace: "/w"}
	for _, c := range []struct {
		tool              string
		generic, internal bool
	}{
		{"TodoWrite", false, true},
		{"ExitPlanMode", false, true},
		{"BashOutput", false, true},
		{"KillBash", false, true},
		{"TaskCreate", false, true},
		{"TaskStop", false, true},
		{"Skill", false, true},
		{"ExitWorktree", true, false},
		{"PowerShell", true, false},
		{"SlashCommand", true, false},
		{"mcp__", true, false},
		{"mcp__server", true, false},
		{"mcp____tool", true, false},
		{"SomeFutureTool", true, false},
	} {
		t.Run(c.tool, func(t *testing.T) {
			in := parse(t, hookJSON(t, EventPreToolUse, "s1", "/w", c.tool, map[string]any{"a": 1}, nil))
			m, err := Map(in, env)
			if err != nil {
				t.Fatal(err)
			}
			if m.Generic != c.generic || m.Internal != c.internal {
				t.Errorf("generic %v internal %v, want %v %v", m.Generic, m.Internal, c.generic, c.internal)
			}
			if c.generic {
				want := `{"server":"claude-code","tool":"` + c.tool + `","arguments":{"a":1}}`
				if m.Type != action.MCPCall || string(m.Payload) != want {
					t.Errorf("got %s %s, want mcp_call %s", m.Type, m.Payload, want)
				}
			}
		})
	}
}

func TestMapErrors(t *testing.T) {
	env := Env{Home: "/home/dev", Workspace: "/w"}
	for _, c := range []struct {
		name, tool, input, want string
	}{
		{"bash without command", "Bash", `{"description":"x"}`, `"command" is missing`},
		{"bash empty command", "Bash", `{"command":""}`, `"command" is empty`},
		{"bash command not a string", "Bash", `{"command":["rm","-rf","/"]}`, "must be a string"},
		{"bash negative timeout", "Bash", `{"command":"ls","timeout":-1}`, "must not be negative"},
		{"bash fractional timeout", "Bash", `{"command":"ls","timeout":1.5}`, "want an integer"},
		{"read without path", "Read", `{}`, `"file_path" is missing`},
		{"read control char", "Read", `{"file_path":"/w/a\u0000b"}`, "control character"},
		{"write without content", "Write", `{"file_path":"/w/a"}`, `"content" is missing`},
		{"edit without new", "Edit", `{"file_path":"/w/a","old_string":"x"}`, `"new_string" is missing`},
		{"multiedit no edits", "MultiEdit", `{"file_path":"/w/a","edits":[]}`, "non-empty array"},
		{"multiedit bad edit", "MultiEdit", `{"file_path":"/w/a","edits":[1]}`, "want a JSON object"},
		{"multiedit edit without old", "MultiEdit", `{"file_path":"/w/a","edits":[{"new_string":"x"}]}`, `"edits[0].old_string" is missing`},
		{"glob without pattern", "Glob", `{"path":"/w"}`, `"pattern" is missing`},
		{"webfetch without url", "WebFetch", `{"prompt":"x"}`, `"url" is missing`},
		{"task without prompt", "Task", `{"description":"x"}`, `"prompt" is missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := parse(t, hookJSON(t, EventPreToolUse, "s1", "/w", c.tool, json.RawMessage(c.input), nil))
			_, err := Map(in, env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	in := parse(t, hookJSON(t, EventPreToolUse, "s1", "/w", "Read", map[string]string{"file_path": "a"}, nil))
	if _, err := Map(in, Env{Home: "", Workspace: "/w"}); err == nil {
		t.Errorf("an unset HOME must be an error")
	}
}

func TestLiteralPrefix(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/w/src/*.go", "/w/src"},
		{"/w/**/x", "/w"},
		{"/w/a/b", "/w/a/b"},
		{"/*", "/"},
		{"/w/[ab]/c", "/w"},
		{"/w/{a,b}/c", "/w"},
		{"/w/a?/c", "/w"},
	} {
		if got := literalPrefix(c.in); got != c.want {
			t.Errorf("literalPrefix(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestMapClaudeCode21Tools: every tool Claude Code 2.1.332 offers the
// model (testdata/cc2.1/tools.json, captured from the real CLI) is
// translated, left to the host as bookkeeping, or gated with a reason
// that says what it is; none is "unknown".
func TestMapClaudeCode21Tools(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "cc2.1", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &tools); err != nil || len(tools) == 0 {
		t.Fatalf("tools.json: %v (%d tools)", err, len(tools))
	}
	// The tools 2.1 defers behind ToolSearch or offers in other modes.
	names := []string{"AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "TodoWrite", "ToolSearch", "TaskOutput",
		"ListMcpResourcesTool", "ReadMcpResourceTool", "NotebookEdit", "Skill", "WebSearch", "PushNotification"}
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	for _, name := range names {
		_, internal := hostInternal(name)
		_, known := uncatalogued(name)
		if mapperFor(name) == nil && !internal && !known {
			t.Errorf("Claude Code 2.1 tool %s is unknown to the mapping", name)
		}
	}
}

// TestMapFixtures: the real TaskCreate and Skill calls of 2.1
// map to host bookkeeping, and the real Agent call to create_agent.
func TestMapFixtures(t *testing.T) {
	env := Env{Home: "/home/dev", Workspace: "/home/dev/project"}
	for _, c := range []struct {
		file     string
		internal bool
		typ      action.Type
	}{
		{"PreToolUse.TaskCreate.json", true, ""},
		{"PreToolUse.Skill.json", true, ""},
		{"PreToolUse.Agent.json", false, action.CreateAgent},
		{"PreToolUse.Bash.subagent.json", false, action.ExecuteCommand},
		{"PreToolUse.NotebookEdit.json", false, action.EditFile},
		{"PreToolUse.WebFetch.json", false, action.HTTPRequest},
	} {
		t.Run(c.file, func(t *testing.T) {
			m, err := Map(parse(t, fixture(t, c.file, "/home/dev/project", nil)), env)
			if err != nil {
				t.Fatal(err)
			}
			if m.Internal != c.internal || m.Type != c.typ || m.Generic || len(m.Unknown) > 0 {
				t.Errorf("got internal %v type %q generic %v unknown %v, want internal %v type %q",
					m.Internal, m.Type, m.Generic, m.Unknown, c.internal, c.typ)
			}
		})
	}
}
