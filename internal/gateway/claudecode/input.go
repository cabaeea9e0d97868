package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"unicode/utf8"

	"github.com/parallax/parallax/action"
)

// Hook events this command answers.
const (
	EventPreToolUse  = "PreToolUse"
	EventPostToolUse = "PostToolUse"
)

// MaxInputBytes bounds the hook JSON read from stdin. Claude Code caps
// what its tools return far below this; a larger input is refused.
const MaxInputBytes = 32 << 20

// maxIDBytes bounds session ids and tool names.
const maxIDBytes = 256

// ErrInput is wrapped by every error about the hook input itself.
var ErrInput = errors.New("bad hook input")

// Input is the JSON Claude Code writes to a hook's stdin for PreToolUse
// and PostToolUse. Top-level fields this package does not know (Claude
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
}

// ReadInput reads and parses the hook input from r, at most MaxInputBytes.
func ReadInput(r io.Reader) (*Input, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read stdin: %v", ErrInput, err)
	}
	if len(b) > MaxInputBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrInput, MaxInputBytes)
	}
	return ParseInput(b)
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
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
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
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	return &in, nil
}

func (in *Input) check() error {
	for _, f := range []struct{ name, v string }{
		{"session_id", in.SessionID}, {"hook_event_name", in.HookEventName}, {"tool_name", in.ToolName},
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
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return fmt.Errorf("cwd %q must be an absolute path", in.Cwd)
	}
	if err := action.CheckPathChars(in.Cwd); err != nil {
		return fmt.Errorf("cwd: %v", err)
	}
	in.Cwd = filepath.Clean(in.Cwd)
	if t := bytes.TrimSpace(in.ToolInput); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		in.ToolInput = json.RawMessage("{}")
	} else if t[0] != '{' {
		return errors.New("tool_input must be a JSON object")
	}
	return nil
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
