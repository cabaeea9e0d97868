package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/verdict"
)

// SourceUnreadResult is the taint source of a session whose tool result
// came in a hook input that could not be read.
const SourceUnreadResult = "unread hook input"

// badInput answers input that could not be read: refused (the error,
// exit status 2), recorded in the audit chain, and, when it carried a
// result (a Post event), the session it names raised to critical: what
// its agent saw was not classified, so it is taken as the worst. A
// result must not slip past classification by being malformed (nested
// too deeply, not UTF-8).
func badInput(ctx context.Context, opts Options, raw []byte, err error) error {
	out := fmt.Errorf("%w; the tool call is refused to fail closed", err)
	if !errors.Is(err, ErrInput) {
		return out
	}
	ws, werr := badInputWorkspace(ctx, opts)
	if werr != nil {
		return out // no workspace: nothing to record in; still refused
	}
	defer func() { _ = ws.Close() }()
	_, _ = ws.Audit.Append(ctx, audit.Event{Type: audit.ActionBlocked, Decision: verdict.Block.String(),
		Stage: stageHook, Rule: RuleBadInput, Reason: clip(badInputReason(err))})
	event, session := action.TopLevelString(raw, "hook_event_name"), action.TopLevelString(raw, "session_id")
	if event != EventPostToolUse && event != EventPostToolUseFailure && event != EventPostToolBatch &&
		!channelEvent(event) {
		return out
	}
	if checkID("session_id", session) != nil {
		return fmt.Errorf("%w; the result it carried was not classified and names no usable session", err)
	}
	if terr := ws.IFCStore().RaiseTaint(ctx, session, ifc.Critical, SourceUnreadResult); terr != nil {
		return errors.Join(out, fmt.Errorf("raise the taint of session %s: %w", session, terr))
	}
	return fmt.Errorf("%w; the result it carried was not classified, so session %s is now treated as having "+
		"seen critical data", err, session)
}

// badInputWorkspace opens the workspace CLAUDE_PROJECT_DIR or the working
// directory is in: the input's own cwd was not read.
func badInputWorkspace(ctx context.Context, opts Options) (*workspace.Workspace, error) {
	var starts []string
	if filepath.IsAbs(opts.ProjectDir) {
		starts = append(starts, opts.ProjectDir)
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	root, err := FindWorkspace(starts...)
	if err != nil {
		return nil, err
	}
	return workspace.Open(ctx, root)
}

// badInputReason says why input was refused without carrying it: the
// bounds check's own words (a depth, a field name), or a fixed sentence.
func badInputReason(err error) string {
	switch {
	case errors.Is(err, errInputTooLarge):
		return "hook input refused: over " + strconv.Itoa(MaxInputBytes) + " bytes"
	case errors.Is(err, action.ErrTooDeep), errors.Is(err, action.ErrInvalidUTF8):
		return "hook input refused: " + strings.TrimPrefix(err.Error(), ErrInput.Error()+": ")
	}
	return "hook input refused: not one strict JSON object with the fields of a hook call"
}
