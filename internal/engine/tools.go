package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/egress"
	"github.com/parallax/parallax/internal/sessions"
	"github.com/parallax/parallax/internal/toolgroup"
	"github.com/parallax/parallax/internal/tools"
	"github.com/parallax/parallax/internal/tools/files"
	"github.com/parallax/parallax/internal/tools/shell"
	"github.com/parallax/parallax/shield"
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
	// CommandTempDir is the TMPDIR each sandboxed command gets, its
	// private temp directory (CommandTempDir(workspace, home)): the gate
	// judges $TMPDIR and mktemp's names with it. A command whose sandbox
	// sets another is refused.
	CommandTempDir string
	// ConfineFiles, when set, is the program (sandbox.Self) from which
	// each file operation is started as a helper the kernel confines to
	// the paths of its decided plan (files.Confined); the helper dispatch
	// (files.ConfinedArg) must be in its main. Empty runs file
	// operations in the engine (agent.sandbox: off).
	ConfineFiles string
}

// ToolExecutors returns the executors of the tool table
// (internal/toolgroup) by action type, each the one the table names.
func ToolExecutors(cfg ToolsConfig) map[action.Type]Executor {
	if cfg.Files.Judge == nil {
		cfg.Files.Judge = files.GuardJudge(cfg.Guard)
	}
	var fx tools.Executor = files.New(cfg.Files)
	if cfg.ConfineFiles != "" {
		fx = &files.Confined{Self: cfg.ConfineFiles, Config: cfg.Files, Guard: cfg.Guard}
	}
	kinds := map[toolgroup.ExecutorKind]Executor{
		toolgroup.FilesExecutor: &filesExecutor{ex: fx},
		toolgroup.ShellExecutor: &shellExecutor{runner: cfg.Shell, sandbox: cfg.CommandSandbox, tempDir: cfg.CommandTempDir},
	}
	out := map[action.Type]Executor{}
	for t, kind := range toolgroup.Executors() {
		if ex := kinds[kind]; ex != nil {
			out[t] = ex
		}
	}
	return out
}

// filesExecutor plans a files call before the decision (resolved paths
// and their identities: the gate judges them) and acts on that plan,
// refusing if anything changed since.
type filesExecutor struct {
	ex tools.Executor // files.Executor, or files.Confined
}

var (
	_ Executor = (*filesExecutor)(nil)
	_ Preparer = (*filesExecutor)(nil)
)

// filesPlan is a files.Plan as the pipeline sees it.
type filesPlan struct {
	plan  *files.Plan
	paths []shield.ResolvedPath
}

// Paths lists the plan's paths with the identity of every existing
// component along each.
func (f *filesPlan) Paths() []shield.ResolvedPath { return f.paths }

func (f *filesExecutor) Prepare(_ context.Context, act *action.Action) (Plan, error) {
	plan, err := files.Prepare(act)
	if err != nil {
		return nil, err
	}
	access := map[string]action.Access{}
	for _, pf := range act.Payload.PathFields() {
		access[pf.Name] = pf.Access
	}
	out := &filesPlan{plan: plan}
	for _, pp := range plan.Paths {
		var id strings.Builder
		for i, c := range pp.Chain {
			if i > 0 {
				id.WriteByte('/')
			}
			fmt.Fprintf(&id, "%d:%d:%o", c.Dev, c.Ino, uint32(c.Type))
		}
		out.paths = append(out.paths, shield.ResolvedPath{Field: pp.Field, Path: pp.Path, Resolved: pp.Resolved,
			Access: access[pp.Field], Identity: id.String()})
	}
	return out, nil
}

func (f *filesExecutor) Execute(ctx context.Context, c Call) (Result, error) {
	fp, ok := c.Plan.(*filesPlan)
	if !ok || fp == nil {
		return Result{}, errors.New("bad_plan: the action was not prepared")
	}
	res, err := f.ex.Execute(ctx, tools.Call{Action: c.Action, Plan: fp.plan})
	return toolResult(res), err
}

// shellExecutor runs execute_command, each command in the sandbox its
// analysis allows: Provision builds it, Cleanup takes it down and adds
// what it noticed (a quarantined file) to the result.
type shellExecutor struct {
	runner  shell.Runner
	sandbox SandboxHook
	tempDir string // TMPDIR inside the sandbox (ToolsConfig.CommandTempDir)
}

var (
	_ Provisioner  = (*shellExecutor)(nil)
	_ Cleaner      = (*shellExecutor)(nil)
	_ CommandEnver = (*shellExecutor)(nil)
)

// shellState is one command's sandbox.
type shellState struct {
	wrap func(*exec.Cmd) error
	done func() SandboxEnd
}

func (s *shellExecutor) Provision(_ context.Context, c Call) (any, error) {
	if s.sandbox == nil {
		return nil, nil
	}
	wrap, done, err := s.sandbox(c.Action)
	if err == nil && wrap == nil {
		err = errors.New("no sandbox for the command")
	}
	if err != nil {
		if done != nil {
			_ = done()
		}
		return nil, fmt.Errorf("%s: the command's sandbox cannot be built: %w", tools.CodeSandbox, err)
	}
	return &shellState{wrap: wrap, done: done}, nil
}

func (s *shellExecutor) Execute(ctx context.Context, c Call) (Result, error) {
	r := s.runner
	r.Wrap = nil
	if s.sandbox != nil {
		st, _ := c.State.(*shellState)
		if st == nil || st.wrap == nil {
			return Result{}, fmt.Errorf("%s: no sandbox for the command", tools.CodeSandbox)
		}
		r.Wrap = st.wrap
	}
	r.Wrap = envChecked(r.Wrap, c.Env)
	res, err := r.Execute(ctx, tools.Call{Action: c.Action})
	return toolResult(res), err
}

func (s *shellExecutor) Cleanup(_ context.Context, c Call, res *Result) {
	st, _ := c.State.(*shellState)
	if st == nil || st.done == nil {
		return
	}
	end := st.done()
	res.Effects, res.EffectsKnown = sandboxEffects(end), true
	notes := end.Notes
	if h := hostTrustedHint(res); h != "" {
		notes = append(notes, h)
	} else if h := sandboxHint(res, end); h != "" {
		notes = append(notes, h)
	}
	if len(notes) > 0 {
		if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
			res.Output += "\n"
		}
		res.Output += "[" + strings.Join(notes, "; ") + "]"
	}
}

// sandboxEffects are what a sandboxed command did that no snapshot
// covers: the granted paths outside the workspace it changed, the hosts
// its egress proxy let it reach.
func sandboxEffects(end SandboxEnd) []sessions.Effect {
	var out []sessions.Effect
	for _, p := range end.Changed {
		out = append(out, sessions.Effect{Kind: sessions.EffectWrite, Subject: p})
	}
	for _, c := range end.Conns {
		if c.Decision == egress.Allowed {
			out = append(out, sessions.Effect{Kind: sessions.EffectNetwork, Subject: net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))})
		}
	}
	if end.Dropped > 0 {
		out = append(out, sessions.Effect{Kind: sessions.EffectNetwork,
			Subject: fmt.Sprintf("%d more connections not recorded", end.Dropped)})
	}
	return out
}

// toolResult is an executor's result as the agent reads it.
func toolResult(r tools.Result) Result {
	out := Result{Output: r.Output, ExitCode: r.ExitCode}
	var notes []string
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
