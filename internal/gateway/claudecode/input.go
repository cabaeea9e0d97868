package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/parallax/parallax/action"
)

// Hook events this command answers. PostToolUse carries a tool's result
// in tool_response; PostToolUseFailure, sent instead when the tool failed
// (Bash exiting non-zero, a Read of a missing file, an interrupt), carries
// what the model is shown in error; PostToolBatch, sent once per batch of
// parallel calls, carries each call with the text the model was shown.
const (
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventPostToolBatch      = "PostToolBatch"
	// EventPreSkillShellCommand is sent before a shell line a skill runs
	// itself (its "!" lines), outside any tool call: tool_name is the
	// shell tool (Bash) and tool_input its command.
	EventPreSkillShellCommand = "PreSkillShellCommand"
)

// Events that carry something to the model outside a tool result (see
// channel.go). None names a tool.
const (
	// EventSessionStart is sent when a session starts, resumes, is
	// cleared or compacted (source): Claude Code has just loaded the
	// memory files (CLAUDE.md, rules, their @imports) into the context.
	EventSessionStart = "SessionStart"
	// EventInstructionsLoaded is sent, without waiting for the hook, for
	// each memory file Claude Code loads (file_path): at start, when a
	// subdirectory's CLAUDE.md or a path-scoped rule comes into play, for
	// an @import (parent_file_path), after a compaction.
	EventInstructionsLoaded = "InstructionsLoaded"
	// EventDirectoryAdded is sent after a working directory (directory)
	// was added mid-session (/add-dir): its memory files join the context.
	EventDirectoryAdded = "DirectoryAdded"
	// EventUserPromptSubmit carries the user's prompt before the model
	// reads it; EventUserPromptExpansion a slash command's prompt and
	// arguments before it expands.
	EventUserPromptSubmit    = "UserPromptSubmit"
	EventUserPromptExpansion = "UserPromptExpansion"
)

// Events lists the hook events the hook answers, in the order install
// registers them. PostToolBatch is answered but not registered: every call
// in a batch already came through PostToolUse or PostToolUseFailure.
func Events() []string {
	return []string{EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventPreSkillShellCommand,
		EventSessionStart, EventInstructionsLoaded, EventDirectoryAdded, EventUserPromptSubmit,
		EventUserPromptExpansion}
}

// answered reports whether the hook answers event.
func answered(event string) bool {
	return event == EventPostToolBatch || toolEvent(event) || channelEvent(event)
}

// toolEvent reports whether event is about one tool call (tool_name).
func toolEvent(event string) bool {
	switch event {
	case EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventPreSkillShellCommand:
		return true
	}
	return false
}

// channelEvent reports whether event carries something to the model
// outside a tool result (see observeChannel).
func channelEvent(event string) bool {
	switch event {
	case EventSessionStart, EventInstructionsLoaded, EventDirectoryAdded, EventUserPromptSubmit,
		EventUserPromptExpansion:
		return true
	}
	return false
}

// MaxInputBytes bounds the hook JSON read from stdin. Claude Code caps
// what its tools return far below this; a larger input is refused.
const MaxInputBytes = 32 << 20

// maxIDBytes bounds session ids and tool names.
const maxIDBytes = 256

// ErrInput is wrapped by every error about the hook input itself.
var ErrInput = errors.New("bad hook input")

// errInputTooLarge is an input over MaxInputBytes.
var errInputTooLarge = fmt.Errorf("over %d bytes", MaxInputBytes)

// ErrUnknownEvent is wrapped (with ErrInput) when the input is for a hook
// event this hook does not answer.
var ErrUnknownEvent = errors.New("hook event not answered by Parallax")

// Input is the JSON Claude Code writes to a hook's stdin for PreToolUse,
// PostToolUse and PostToolUseFailure (and, with ToolCalls, PostToolBatch).
// Top-level fields this package does not know (Claude
// Code adds some over versions) are ignored: none of them changes what a
// tool does. Unknown fields inside tool_input are not ignored (see Map).
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	// Error is PostToolUseFailure's account of the failure: the text the
	// model is shown (for Bash, the exit code and the command's output).
	Error string `json:"error,omitempty"`
	// ToolCalls is PostToolBatch's list of calls (each with tool_name,
	// tool_input, tool_use_id and tool_response); see Calls.
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`

	// Source is why SessionStart fired (startup, resume, clear, compact,
	// fork) or how a directory was added.
	Source string `json:"source,omitempty"`
	// FilePath and ParentFilePath are InstructionsLoaded's memory file and
	// the file that @-imported it; MemoryType and LoadReason say which
	// kind and why it was loaded.
	FilePath       string `json:"file_path,omitempty"`
	ParentFilePath string `json:"parent_file_path,omitempty"`
	MemoryType     string `json:"memory_type,omitempty"`
	LoadReason     string `json:"load_reason,omitempty"`
	// Directory is DirectoryAdded's new working directory.
	Directory string `json:"directory,omitempty"`
	// Prompt is what the user submitted (UserPromptSubmit) or typed as a
	// slash command (UserPromptExpansion, with CommandArgs). Kept raw:
	// every string in them is classified, whatever their shape.
	Prompt      json.RawMessage `json:"prompt,omitempty"`
	CommandArgs json.RawMessage `json:"command_args,omitempty"`
}

// PromptText is the text of a prompt event: every string of prompt and
// command_args.
func (in *Input) PromptText() string {
	p, a := ResponseText(in.Prompt), ResponseText(in.CommandArgs)
	if p == "" || a == "" {
		return p + a
	}
	return p + "\n" + a
}

// ResultText is the text of what the tool returned to the model: every
// string of tool_response (see ResponseText) and, for a failure, the
// error text.
func (in *Input) ResultText() string {
	text := ResponseText(in.ToolResponse)
	switch {
	case in.Error == "":
		return text
	case text == "":
		return in.Error
	}
	return text + "\n" + in.Error
}

// ReadInput reads and parses the hook input from r, at most MaxInputBytes.
func ReadInput(r io.Reader) (*Input, error) {
	b, err := readInput(r)
	if err != nil {
		return nil, err
	}
	return ParseInput(b)
}

// readInput reads at most MaxInputBytes of r; past that it returns the
// first MaxInputBytes+1 bytes and errInputTooLarge.
func readInput(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read stdin: %v", ErrInput, err)
	}
	if len(b) > MaxInputBytes {
		return b, fmt.Errorf("%w: %w", ErrInput, errInputTooLarge)
	}
	return b, nil
}

// ParseInput parses one hook input. It refuses invalid JSON, trailing
// data, a key given twice at any depth (Claude Code and the gate must not
// read different copies), a missing session_id, hook_event_name or
// tool_name, a relative cwd, a tool_input that is not an object, and ids
// with control characters.
func ParseInput(b []byte) (*Input, error) {
	body := bytes.TrimSpace(b)
	if len(body) == 0 || body[0] != '{' {
		return nil, fmt.Errorf("%w: want a JSON object on stdin", ErrInput)
	}
	if err := action.CheckDuplicateKeys(body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	var in Input
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after the JSON object", ErrInput)
	}
	if err := in.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return &in, nil
}

func (in *Input) check() error {
	if err := checkID("hook_event_name", in.HookEventName); err != nil {
		return err
	}
	if !answered(in.HookEventName) {
		return fmt.Errorf("%w: %s (it answers %s); remove it from that event in the Claude Code settings, "+
			"or reinstall it (parallax hook claude-code install)", ErrUnknownEvent, quoteName(in.HookEventName),
			strings.Join(append(Events(), EventPostToolBatch), ", "))
	}
	if in.HookEventName == EventPostToolBatch {
		return in.checkBatch()
	}
	if channelEvent(in.HookEventName) {
		return in.checkChannel()
	}
	for _, f := range []struct{ name, v string }{
		{"session_id", in.SessionID}, {"tool_name", in.ToolName},
	} {
		if err := checkID(f.name, f.v); err != nil {
			return err
		}
	}
	if in.ToolUseID != "" {
		if err := checkID("tool_use_id", in.ToolUseID); err != nil {
			return err
		}
	}
	if err := in.checkCwd(); err != nil {
		return err
	}
	if t := bytes.TrimSpace(in.ToolInput); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		in.ToolInput = json.RawMessage("{}")
	} else if t[0] != '{' {
		return errors.New("tool_input must be a JSON object")
	}
	return nil
}

func (in *Input) checkCwd() error {
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return fmt.Errorf("cwd %q must be an absolute path", in.Cwd)
	}
	if err := action.CheckPathChars(in.Cwd); err != nil {
		return fmt.Errorf("cwd: %v", err)
	}
	in.Cwd = filepath.Clean(in.Cwd)
	return nil
}

// checkChannel checks the input of an event that names no tool: its
// session, its cwd and the path it names, if any.
func (in *Input) checkChannel() error {
	if err := checkID("session_id", in.SessionID); err != nil {
		return err
	}
	if err := in.checkCwd(); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *string
		need bool
	}{
		{"file_path", &in.FilePath, in.HookEventName == EventInstructionsLoaded},
		{"parent_file_path", &in.ParentFilePath, false},
		{"directory", &in.Directory, in.HookEventName == EventDirectoryAdded},
	} {
		if *f.v == "" && !f.need {
			continue
		}
		if !filepath.IsAbs(*f.v) {
			return fmt.Errorf("%s %q must be an absolute path", f.name, *f.v)
		}
		if err := action.CheckPathChars(*f.v); err != nil {
			return fmt.Errorf("%s: %v", f.name, err)
		}
		*f.v = filepath.Clean(*f.v)
	}
	return nil
}

// checkBatch checks a PostToolBatch input: its own ids and every call.
func (in *Input) checkBatch() error {
	if err := checkID("session_id", in.SessionID); err != nil {
		return err
	}
	if err := in.checkCwd(); err != nil {
		return err
	}
	_, err := in.Calls()
	return err
}

// Calls returns the calls of a PostToolBatch input, each as a PostToolUse
// input of the same session and cwd, checked like one.
func (in *Input) Calls() ([]*Input, error) {
	var raw []struct {
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolUseID    string          `json:"tool_use_id"`
		ToolResponse json.RawMessage `json:"tool_response"`
	}
	if err := json.Unmarshal(in.ToolCalls, &raw); err != nil {
		return nil, errors.New("tool_calls must be an array of tool calls")
	}
	out := make([]*Input, 0, len(raw))
	for i, c := range raw {
		call := &Input{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
			PermissionMode: in.PermissionMode, HookEventName: EventPostToolUse, ToolName: c.ToolName,
			ToolInput: c.ToolInput, ToolResponse: c.ToolResponse, ToolUseID: c.ToolUseID}
		if err := call.check(); err != nil {
			return nil, fmt.Errorf("tool_calls[%d]: %w", i, err)
		}
		out = append(out, call)
	}
	return out, nil
}

// checkID refuses an empty, overlong or non-printable identifier.
func checkID(name, v string) error {
	if v == "" {
		return fmt.Errorf("%s is missing", name)
	}
	if len(v) > maxIDBytes || !utf8.ValidString(v) {
		return fmt.Errorf("%s is longer than %d bytes or not UTF-8", name, maxIDBytes)
	}
	for _, r := range v {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return fmt.Errorf("%s contains a control character", name)
		}
	}
	return nil
}
