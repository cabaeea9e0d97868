//go:build linux

package shell

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// Defaults of a Runner.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultMaxTimeout = 10 * time.Minute
	DefaultOutputCap  = 64 << 10
	DefaultKillGrace  = 2 * time.Second
)

// Runner runs execute_command actions.
type Runner struct {
	Workspace      string        // the command's working directory (absolute)
	Env            []string      // the base environment; nil means the engine's (os.Environ)
	Scrub          Scrub         // what is dropped from the base environment
	DefaultTimeout time.Duration // when the payload names none (30 s)
	MaxTimeout     time.Duration // a larger timeout_seconds is refused (10 min)
	OutputCap      int           // bytes of output kept, head and tail (64 KiB)
	KillGrace      time.Duration // between SIGTERM and SIGKILL (2 s)
	// Shell is the interpreter; "" means /bin/bash, or /bin/sh where bash
	// is missing. The gate analyses commands as bash, so bash runs them.
	Shell string
	// Wrap is where the engine puts the command in its kernel sandbox. It
	// may rewrite the command (path, arguments, environment, attributes)
	// but not its I/O; nil means no sandbox. An error refuses to run.
	Wrap func(*exec.Cmd) error
}

var _ tools.Executor = (*Runner)(nil)

// Execute implements tools.Executor for execute_command.
func (r *Runner) Execute(ctx context.Context, call tools.Call) (tools.Result, error) {
	if call.Action == nil {
		return tools.Fail(tools.Errorf(tools.CodeBadInput, "execute", "", "no action"))
	}
	p, ok := call.Action.Payload.(*action.ExecuteCommandPayload)
	if !ok || call.Action.Type != action.ExecuteCommand {
		return tools.Fail(tools.Errorf(tools.CodeUnsupported, string(call.Action.Type), "", "not execute_command"))
	}
	secs, maxS := int64(p.TimeoutSeconds), int64(orDefault(r.MaxTimeout, DefaultMaxTimeout)/time.Second)
	if secs < 0 || secs > maxS {
		return tools.Fail(tools.Errorf(tools.CodeBadInput, "execute_command", "timeout_seconds",
			"%d is outside 0..%d", secs, maxS))
	}
	return r.Run(ctx, p.Command, time.Duration(secs)*time.Second)
}

func orDefault[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

// shell returns the interpreter to run.
func (r *Runner) shell() string {
	if r.Shell != "" {
		return r.Shell
	}
	if st, err := os.Stat("/bin/bash"); err == nil && st.Mode().IsRegular() {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// Run runs command with the shell in the workspace; timeout 0 means the
// default. A command that ran returns its exit code and output (err nil),
// also when it timed out (TimedOut); it is an error when it could not
// start, the sandbox could not be applied, or ctx was canceled.
func (r *Runner) Run(ctx context.Context, command string, timeout time.Duration) (tools.Result, error) {
	const op = "execute_command"
	sh := r.shell()
	part := sh + " " + program(command)
	cmd, err := r.command(sh, command)
	if err != nil {
		return tools.Fail(err)
	}
	if r.Wrap != nil {
		if err := r.Wrap(cmd); err != nil {
			return tools.Fail(&tools.Error{Code: tools.CodeSandbox, Op: op, Part: part, Msg: "sandbox not applied; not run", Err: err})
		}
	}
	out := newHeadTail(orDefault(r.OutputCap, DefaultOutputCap))
	pr, pw, err := os.Pipe()
	if err != nil {
		return tools.Fail(&tools.Error{Code: tools.CodeIO, Op: op, Part: part, Err: err})
	}
	// Set after Wrap so that no wrapper can undo them: one pipe for
	// stdout and stderr (interleaved as written), stdin /dev/null, an own
	// process group, killed if the engine dies.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, pw, pw
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, 0
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return tools.Fail(&tools.Error{Code: tools.CodeIO, Op: op, Part: part, Msg: "start", Err: err})
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()
	limit := orDefault(timeout, orDefault(r.DefaultTimeout, DefaultTimeout))
	state := r.wait(ctx, cmd, limit)
	state.limit, state.chosen = limit, timeout != 0
	select {
	case <-copied:
	case <-time.After(orDefault(r.KillGrace, DefaultKillGrace)):
		// A process that left the group still holds the pipe: stop reading.
	}
	pr.Close()
	<-copied
	return r.result(op, part, out, state)
}

// command builds the shell command with the scrubbed environment.
func (r *Runner) command(sh, command string) (*exec.Cmd, error) {
	const op = "execute_command"
	if !filepath.IsAbs(r.Workspace) {
		return nil, tools.Errorf(tools.CodeBadInput, op, r.Workspace, "workspace must be an absolute path")
	}
	if st, err := os.Stat(r.Workspace); err != nil || !st.IsDir() {
		return nil, tools.Errorf(tools.CodeNotFound, op, r.Workspace, "workspace is not a directory")
	}
	base := r.Env
	if base == nil {
		base = os.Environ()
	}
	env, _ := r.Scrub.Apply(base)
	args := []string{sh, "-c", command}
	if filepath.Base(sh) == "bash" {
		args = []string{sh, "--noprofile", "--norc", "-c", command}
	}
	return &exec.Cmd{Path: sh, Args: args, Dir: r.Workspace, Env: env}, nil
}

// waitState is how a command ended.
type waitState struct {
	err      error // from cmd.Wait
	timedOut bool
	canceled error         // the caller's context error, if it ended the command
	limit    time.Duration // the timeout the command ran under
	chosen   bool          // the limit was the call's timeout_seconds, not the default
}

// wait waits for the command, ending its whole process group on timeout
// or cancel: SIGTERM, then SIGKILL after the grace period. Whatever the
// shell leaves in its group when it exits is killed too. The shell is
// reaped only after that: while it is a zombie its process group id
// cannot be reused, so the kill cannot reach an unrelated group.
func (r *Runner) wait(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) waitState {
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		close(exited)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var st waitState
	select {
	case <-exited:
	case <-timer.C:
		st.timedOut = true
	case <-ctx.Done():
		st.canceled = ctx.Err()
	}
	if st.timedOut || st.canceled != nil {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		grace := time.NewTimer(orDefault(r.KillGrace, DefaultKillGrace))
		defer grace.Stop()
		select {
		case <-exited:
		case <-grace.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	st.err = cmd.Wait()
	return st
}

func (r *Runner) result(op, part string, out *headTail, st waitState) (tools.Result, error) {
	text, truncated := out.String()
	res := tools.Result{Output: text, Truncated: truncated, TimedOut: st.timedOut}
	var exit *exec.ExitError
	switch {
	case st.err == nil:
	case errors.As(st.err, &exit):
		res.ExitCode = exit.ExitCode() // -1 when killed by a signal
	default:
		return tools.Fail(&tools.Error{Code: tools.CodeIO, Op: op, Part: part, Msg: "wait", Err: st.err})
	}
	if st.timedOut {
		res.Output += "\n[" + timeoutNote(st.limit, st.chosen, orDefault(r.MaxTimeout, DefaultMaxTimeout)) + "]"
	}
	if st.canceled != nil {
		err := &tools.Error{Code: tools.CodeCanceled, Op: op, Part: part, Msg: "process group killed", Err: st.canceled}
		res.Code, res.Error = err.Code, err.Error()
		return res, err
	}
	return res, nil
}

// plainWord is a program name worth naming in a message; anything else
// (assignments, quoting, expansions) might carry a secret.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+-]{1,64}$`)

// program names the command's first word for messages, when plain.
func program(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 || !plainWord.MatchString(f[0]) {
		return "(command)"
	}
	return f[0]
}

// timeoutNote says what ended a command: the limit, whether it was the
// default, and how to ask for more (the parameter and its bound).
func timeoutNote(limit time.Duration, chosen bool, maxT time.Duration) string {
	how := "the default limit; a longer command can set timeout_seconds, up to " + strconv.Itoa(int(maxT/time.Second))
	if chosen {
		how = "the timeout_seconds it asked for; at most " + strconv.Itoa(int(maxT/time.Second))
	}
	after := strconv.Itoa(int(limit/time.Second)) + " s"
	if limit%time.Second != 0 {
		after = limit.String()
	}
	return "timed out after " + after + " (" + how + "); the command's process group was killed"
}
