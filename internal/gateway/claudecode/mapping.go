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
	// Generic is set for a tool this mapping does not know: it is gated as
	// an mcp_call to server "claude-code" and is never let through without
	// a human.
	Generic bool
	// Internal is set for Claude Code's own bookkeeping tools (HostInternal):
	// no effect outside the host; they are audited and left to the host.
	Internal bool
	// Files are the absolute paths a file tool writes (Write, Edit,
	// MultiEdit, NotebookEdit); Chronicle snapshots them first.
	Files []string
	// Command and Cwd are the Bash command as the agent wrote it and the
	// directory it runs in; its write targets come from shell analysis.
	Command, Cwd string
}

// HostInternal names Claude Code's tools whose only effect is on the
// host's own session state, and what each does. They are not gated (the
// catalog has nothing that fits and ESCALATE on each would make the hook
// unusable), but every call is audited and the host's permission rules
// still apply; their results are observed like any other.
var HostInternal = map[string]string{
	"TodoWrite":       "updates the session's task list",
	"ExitPlanMode":    "presents a plan to the user",
	"AskUserQuestion": "asks the user a question",
	"BashOutput":      "reads the output of a background command already judged",
	"KillShell":       "stops a background command the agent started",
	"KillBash":        "stops a background command the agent started",
}

// mapper translates one tool's input. c holds the hook's cwd and home.
type mapper func(c *mapCtx, f *fields) (Mapped, error)

// mappers is the table of tools the hook knows, by Claude Code tool name.
var mappers = map[string]mapper{
	"Bash":         mapBash,
	"Read":         mapRead,
	"NotebookRead": mapNotebookRead,
	"Write":        mapWrite,
	"Edit":         mapEdit,
	"MultiEdit":    mapMultiEdit,
	"NotebookEdit": mapNotebookEdit,
	"Glob":         mapGlob,
	"Grep":         mapGrep,
	"LS":           mapLS,
	"WebFetch":     mapWebFetch,
	"WebSearch":    mapWebSearch,
	"Task":         mapTask,
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
	if _, ok := HostInternal[in.ToolName]; ok {
		return Mapped{Tool: in.ToolName, Internal: true}, nil
	}
	m, ok := mappers[in.ToolName]
	if !ok {
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
	out.Unknown = append(f.unknown(), out.Unknown...)
	return out, nil
}

// Generic gates a tool as what it is: an mcp_call of tool_name on server
// "claude-code" with tool_input as its arguments.
func Generic(in *Input) (Mapped, error) {
	return payloadOf(Mapped{Tool: in.ToolName, Type: action.MCPCall, Generic: true}, action.MCPCallPayload{
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
