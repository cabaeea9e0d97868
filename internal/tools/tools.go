package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/parallax/parallax/action"
)

// Executor runs one decided action.
type Executor interface {
	Execute(ctx context.Context, call Call) (Result, error)
}

// Plan is what an executor fixed about an action when the gate decided
// it, and checks again just before it acts.
type Plan interface {
	// ActionType is the type of the action the plan was taken for.
	ActionType() action.Type
}

// Call is one execution request: the decoded action and the plan taken
// at decision time (nil for executors that need none).
type Call struct {
	Action *action.Action
	Plan   Plan
}

// Result is what the model gets back. Code and Error are set when the
// action failed or was refused; a command that ran and exited non-zero is
// not a failure (ExitCode says so).
type Result struct {
	Output    string
	Truncated bool // Output was cut to a bound
	ExitCode  int  // shell: the command's exit status (-1 when killed)
	TimedOut  bool // shell: the timeout ended the command
	Code      string
	Error     string
}

// Stable reason codes of executor failures: a public contract like the
// gate's reason codes (audit, UI and tests use them).
const (
	CodePathChanged = "path_changed"     // a path is not what the gate decided on
	CodeNotFound    = "not_found"        // the path does not exist
	CodeExists      = "exists"           // the destination exists and may not be replaced
	CodeIsDir       = "is_directory"     // a directory where a file was wanted
	CodeNotDir      = "not_directory"    // a file where a directory was wanted
	CodeNotRegular  = "not_regular_file" // a device, FIFO, socket or symlink
	CodeNoMatch     = "no_match"         // edit: the old text does not occur
	CodeAmbiguous   = "ambiguous_edit"   // edit: the old text occurs more than once
	CodeTooLarge    = "too_large"        // over a configured size bound
	CodeBadInput    = "bad_input"        // the payload cannot be executed as given
	CodeBadPlan     = "bad_plan"         // no plan, or a plan for another action
	CodeUnsupported = "unsupported"      // an action type this executor does not run
	CodePermission  = "permission_denied"
	CodeIO          = "io_error"
	CodeSandbox     = "sandbox_refused" // the per-command sandbox could not be applied
	CodeNoGuard     = "no_guard"        // a directory walk with nothing to judge its entries
	CodeCanceled    = "canceled"
)

// Error is an executor failure: a stable code, the operation, the path or
// command part that failed, and a detail. It never carries file contents.
type Error struct {
	Code string
	Op   string // the action type or step, e.g. "write_file"
	Part string // the path or command part that failed
	Msg  string
	Err  error // the underlying cause, if any
}

// Error renders "code: op part: detail: cause".
func (e *Error) Error() string {
	s := e.Code + ": " + e.Op
	if e.Part != "" {
		s += " " + e.Part
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error with a formatted detail.
func Errorf(code, op, part, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Part: part, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the reason code of err: its *Error code, CodeCanceled
// for a context error, CodeIO otherwise; "" for nil.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return CodeCanceled
	}
	return CodeIO
}

// Fail turns err into the Result the model sees, and returns err too.
func Fail(err error) (Result, error) {
	return Result{Code: CodeOf(err), Error: err.Error()}, err
}
