package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/internal/tools/files"
	"github.com/parallax/parallax/internal/tools/shell"
)

// ToolsConfig configures the executors of the files and shell groups.
type ToolsConfig struct {
	// Files bounds the file actions. Its Judge, when nil, is Guard's.
	Files files.Config
	// Guard judges every entry of a directory walk (list_directory,
	// search_files): the gate's own guard (shield.Gate.Guard; Open fills
	// it in from Options.Tools). With neither Guard nor Files.Judge,
	// every walk is refused (no_guard).
	Guard *guard.Guard
	// Shell is the command runner; its Wrap is replaced per call by
	// CommandSandbox.
	Shell shell.Runner
	// CommandSandbox returns, for one command, the wrapper that runs it
	// in its own kernel sandbox (NewCommandSandbox). nil runs commands
	// without one (agent.sandbox: off); an error refuses the command.
	CommandSandbox SandboxHook
}

// ToolExecutors returns the executors of the files and shell groups by
// action type.
func ToolExecutors(cfg ToolsConfig) map[action.Type]Executor {
	if cfg.Files.Judge == nil {
		cfg.Files.Judge = files.GuardJudge(cfg.Guard)
	}
	fe := &filesExecutor{ex: files.New(cfg.Files)}
	se := &shellExecutor{runner: cfg.Shell, sandbox: cfg.CommandSandbox}
	out := map[action.Type]Executor{action.ExecuteCommand: se}
	for _, t := range []action.Type{action.ReadFile, action.WriteFile, action.EditFile, action.DeleteFile, action.MoveFile,
		action.CopyFile, action.ListDirectory, action.SearchFiles, action.CreateDirectory} {
		out[t] = fe
	}
	return out
}

// filesExecutor takes the files plan (resolved paths and their
// identities) when the engine prepares the call, and hands it to the
// executor, which refuses to act if anything changed since.
type filesExecutor struct {
	ex    *files.Executor
	plans sync.Map // *action.Action → *files.Plan
}

var (
	_ Executor = (*filesExecutor)(nil)
	_ Resolver = (*filesExecutor)(nil)
)

// Resolved lists the paths of act's plan (Prepare must have run).
func (f *filesExecutor) Resolved(act *action.Action) []ResolvedPath {
	v, ok := f.plans.Load(act)
	if !ok {
		return nil
	}
	access := map[string]action.Access{}
	for _, pf := range act.Payload.PathFields() {
		access[pf.Name] = pf.Access
	}
	var out []ResolvedPath
	for _, pp := range v.(*files.Plan).Paths {
		out = append(out, ResolvedPath{Field: pp.Field, Named: pp.Path, Resolved: pp.Resolved, Access: access[pp.Field]})
	}
	return out
}

// Discard drops act's plan.
func (f *filesExecutor) Discard(act *action.Action) { f.plans.Delete(act) }

func (f *filesExecutor) Prepare(_ context.Context, act *action.Action) (*action.Action, error) {
	plan, err := files.Prepare(act)
	if err != nil {
		return nil, err
	}
	f.plans.Store(act, plan)
	return act, nil
}

func (f *filesExecutor) Execute(ctx context.Context, act *action.Action) (Result, error) {
	v, ok := f.plans.LoadAndDelete(act)
	if !ok {
		return Result{}, errors.New("bad_plan: the action was not prepared")
	}
	res, err := f.ex.Execute(ctx, tools.Call{Action: act, Plan: v.(*files.Plan)})
	return toolResult(res), err
}

// shellExecutor runs execute_command, each command in the sandbox its
// analysis allows.
type shellExecutor struct {
	runner  shell.Runner
	sandbox SandboxHook
}

func (s *shellExecutor) Execute(ctx context.Context, act *action.Action) (Result, error) {
	r := s.runner
	r.Wrap = nil
	var done func() []string
	if s.sandbox != nil {
		wrap, d, err := s.sandbox(act)
		if d != nil {
			// done runs exactly once: below on the normal end (its notes go
			// into the result), here on every other return.
			done = d
			defer func() {
				if done != nil {
					_ = done()
				}
			}()
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: the command's sandbox cannot be built: %w", tools.CodeSandbox, err)
		}
		if wrap == nil {
			return Result{}, fmt.Errorf("%s: no sandbox for the command", tools.CodeSandbox)
		}
		r.Wrap = wrap
	}
	res, err := r.Execute(ctx, tools.Call{Action: act})
	out := toolResult(res)
	if done != nil {
		notes := done()
		done = nil
		if len(notes) > 0 {
			if out.Output != "" && !strings.HasSuffix(out.Output, "\n") {
				out.Output += "\n"
			}
			out.Output += "[" + strings.Join(notes, "; ") + "]"
		}
	}
	return out, err
}

// toolResult is an executor's result as the agent reads it.
func toolResult(r tools.Result) Result {
	out := Result{Output: r.Output, ExitCode: r.ExitCode}
	var notes []string
	if r.TimedOut {
		notes = append(notes, "the command timed out and was killed")
	}
	if r.ExitCode != 0 && !r.TimedOut {
		notes = append(notes, fmt.Sprintf("exit status %d", r.ExitCode))
	}
	if r.Truncated {
		notes = append(notes, "output cut to its bound")
	}
	if r.Code != "" {
		out.IsError = true
		notes = append(notes, r.Code+": "+r.Error)
	}
	if len(notes) > 0 {
		if out.Output != "" && !strings.HasSuffix(out.Output, "\n") {
			out.Output += "\n"
		}
		out.Output += "[" + strings.Join(notes, "; ") + "]"
	}
	return out
}
