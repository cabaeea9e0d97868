package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/action"
)

// GenericServer is the mcp_call server name under which tools this
// mapping does not know are gated.
const GenericServer = "claude-code"

// Mapped is a Claude Code tool call translated to a catalog action.
type Mapped struct {
	Tool    string
	Type    action.Type
	Payload json.RawMessage
	// Unknown lists tool_input fields the mapping does not understand. The
	// gate judges the fields it does understand; an ALLOW then becomes
	// ESCALATE, since nobody judged what the others do.
	Unknown []string
	// Generic is set for a tool this mapping does not translate: it is
	// gated as an mcp_call to server "claude-code" and is never let through
	// without a human. What says what the tool does when Parallax knows it
	// (see uncatalogued); empty for a tool Parallax does not know.
	Generic bool
	// Internal is set for Claude Code's own bookkeeping tools (see
	// hostInternal): no effect outside the host; they are audited and left
	// to the host. What says what the call does, for the audit entry.
	Internal bool
	What     string
	// Files are the absolute paths a file tool writes (Write, Edit,
	// MultiEdit, NotebookEdit); Chronicle snapshots them first.
	Files []string
	// Command and Cwd are the Bash command as the agent wrote it and the
	// directory it runs in; its write targets come from shell analysis.
	Command, Cwd string
}

// hostInternal says what a Claude Code tool whose only effect is on the
// host's own session state does; ok is false for every other tool. These
// tools are not gated (the catalog has nothing that fits and ESCALATE on
// each would make the hook unusable), but every call is audited and the
// host's permission rules still apply; their results are observed like
// any other. A switch, not a table: nothing to build at start-up and
// nothing another package can change.
func hostInternal(tool string) (what string, ok bool) {
	switch tool {
	case "TodoWrite", "TaskCreate", "TaskUpdate":
		return "updates the session's task list", true
	case "TaskGet", "TaskList":
		return "reads the session's task list", true
	case "TaskOutput", "BashOutput":
		return "reads the output of a background task already judged", true
	case "TaskStop", "KillShell", "KillBash":
		return "stops a background task the agent started", true
	case "EnterPlanMode":
		return "switches the session to plan mode", true
	case "ExitPlanMode":
		return "presents a plan to the user", true
	case "AskUserQuestion":
		return "asks the user a question", true
	case "ToolSearch":
		return "loads the definitions of the host's deferred tools", true
	case "ListMcpResourcesTool":
		return "lists the resources the connected MCP servers offer", true
	case "RefreshMcpTools":
		return "reloads the tool lists of the connected MCP servers", true
	case "ListAgents":
		return "lists the agents the session can message", true
	case "Skill":
		return "loads a skill's instructions into the session (the calls they lead to are gated one by one)", true
	case "StructuredOutput":
		return "returns the session's final answer", true
	case "ReportFindings", "ProposeGoal", "ProposeSkills", "ShowOnboardingRolePicker", "OfferChromeSetup",
		"ReadNotifications":
		return "shows something to the user in the host's interface", true
	}
	return "", false
}

// uncatalogued says what a Claude Code tool does whose effect the catalog
// cannot express (and Parallax therefore cannot judge); ok is false for
// every other tool. Such a tool is gated like an unknown one (an mcp_call
// on server "claude-code", never let through without a human), with a
// reason that says what it is.
func uncatalogued(tool string) (what string, ok bool) {
	switch tool {
	case "EnterWorktree":
		return "creates or enters a git worktree and moves the session there", true
	case "ExitWorktree":
		return "leaves a git worktree and may delete it with its uncommitted changes", true
	case "RemoteTrigger":
		return "manages triggers that run Claude Code agents in the cloud", true
	case "Artifact", "Projects", "ClaudeDesign":
		return "reads or uploads content in the user's Claude account", true
	case "PowerShell":
		return "runs a PowerShell command, which Parallax's shell analysis does not read", true
	case "REPL":
		return "runs code in the host's REPL", true
	case "LSP":
		return "queries a language server", true
	}
	return "", false
}

// mapper translates one tool's input. c holds the hook's cwd and home.
type mapper func(c *mapCtx, f *fields) (Mapped, error)

// mapperFor is the mapper of a tool the hook translates, by Claude Code
// tool name (current names and the older ones still in use); nil for
// every other tool.
func mapperFor(tool string) mapper {
	switch tool {
	case "Bash":
		return mapBash
	case "Read":
		return mapRead
	case "NotebookRead":
		return mapNotebookRead
	case "Write":
		return mapWrite
	case "Edit":
		return mapEdit
	case "MultiEdit":
		return mapMultiEdit
	case "NotebookEdit":
		return mapNotebookEdit
	case "Glob":
		return mapGlob
	case "Grep":
		return mapGrep
	case "LS":
		return mapLS
	case "WebFetch":
		return mapWebFetch
	case "WebSearch":
		return mapWebSearch
	case "Agent", "Task":
		return mapAgent
	case "Workflow":
		return mapWorkflow
	case "SendMessage":
		return mapSendMessage
	case "Monitor":
		return mapMonitor
	case "CronCreate":
		return mapCronCreate
	case "CronDelete":
		return mapCronDelete
	case "CronList":
		return mapCronList
	case "ScheduleWakeup":
		return mapScheduleWakeup
	case "PushNotification":
		return mapPushNotification
	case "SendFeedback":
		return mapSendFeedback
	case "ReadMcpResourceTool", "ReadMcpResourceDirTool":
		return mapReadMcpResource
	}
	return nil
}

// Env is what the mapping needs to know about the machine.
type Env struct {
	Home      string // what ~ means (absolute)
	Workspace string // the workspace root the gate analyses commands in
}

type mapCtx struct {
	cwd string
	env Env
}

// Map translates the tool call of a hook input into an action. Paths are
// made absolute (relative ones against cwd, ~ against home). A malformed
// tool_input of a known tool is an error: the caller denies it.
func Map(in *Input, env Env) (Mapped, error) {
	if name, ok := strings.CutPrefix(in.ToolName, "mcp__"); ok {
		if server, tool, ok := strings.Cut(name, "__"); ok && server != "" && tool != "" {
			return payloadOf(Mapped{Tool: in.ToolName, Type: action.MCPCall}, action.MCPCallPayload{
				Server: server, Tool: tool, Arguments: in.ToolInput})
		}
	}
	if what, ok := hostInternal(in.ToolName); ok {
		return Mapped{Tool: in.ToolName, Internal: true, What: what}, nil
	}
	m := mapperFor(in.ToolName)
	if m == nil {
		return Generic(in)
	}
	if !filepath.IsAbs(env.Home) {
		return Mapped{}, errors.New("HOME is not an absolute path: it decides what ~ means")
	}
	f, err := newFields(in.ToolName, "", in.ToolInput)
	if err != nil {
		return Mapped{}, err
	}
	out, err := m(&mapCtx{cwd: in.Cwd, env: env}, f)
	if err != nil {
		return Mapped{}, err
	}
	out.Tool = in.ToolName
	if out.Internal {
		return out, nil
	}
	out.Unknown = append(f.unknown(), out.Unknown...)
	return out, nil
}

// Generic gates a tool as what it is: an mcp_call of tool_name on server
// "claude-code" with tool_input as its arguments.
func Generic(in *Input) (Mapped, error) {
	what, _ := uncatalogued(in.ToolName)
	return payloadOf(Mapped{Tool: in.ToolName, Type: action.MCPCall, Generic: true, What: what}, action.MCPCallPayload{
		Server: GenericServer, Tool: in.ToolName, Arguments: in.ToolInput})
}

func payloadOf(m Mapped, p any) (Mapped, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return Mapped{}, fmt.Errorf("encode %s payload: %w", m.Type, err)
	}
	m.Payload = b
	return m, nil
}

// path reads a path field and makes it absolute.
func (c *mapCtx) path(f *fields, name string) (string, error) {
	p, err := f.str(name, true, true)
	if err != nil {
		return "", err
	}
	abs, err := resolvePath(c.cwd, c.env.Home, p)
	if err != nil {
		return "", fmt.Errorf("%s input: field %q: %w", f.tool, name, err)
	}
	return abs, nil
}

// resolvePath expands ~, joins a relative path to cwd and cleans it.
func resolvePath(cwd, home, p string) (string, error) {
	if err := action.CheckPathChars(p); err != nil {
		return "", err
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return action.NormalizePath(p, action.Env{Home: home})
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
