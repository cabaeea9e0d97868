package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/agent/proc"
	"github.com/parallax/parallax/internal/agentlink"
	"github.com/parallax/parallax/sandbox"
)

// supervise runs agent processes one after the other: a crashed agent
// is restarted while the crashes within RestartWindow stay within
// RestartBudget; then, or when the sandbox report fails, it returns.
func (r *Runtime) supervise(ctx context.Context) error {
	var crashes []time.Time
	for {
		how, err := r.runAgent(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			var sre *SandboxRefusedError
			if errors.As(err, &sre) {
				return err
			}
		}
		now := r.opts.Now()
		crashes = append(crashes, now)
		kept := crashes[:0]
		for _, t := range crashes {
			if now.Sub(t) < r.settings.RestartWindow {
				kept = append(kept, t)
			}
		}
		crashes = kept
		r.appendAudit(ctx, audit.Event{Type: audit.ShieldError, Rule: "agent_crashed", Decision: "BLOCK",
			Reason: "the agent process ended unexpectedly: " + how, Detail: audit.Detail{Code: "agent_crashed", Count: int64(len(crashes))}})
		if len(crashes) > r.settings.RestartBudget {
			return &CrashLoopError{Crashes: len(crashes), Window: r.settings.RestartWindow, Last: how}
		}
		r.restarts.Add(1)
		r.log.Warn("agent crashed; restarting", "how", how, "crashes", len(crashes), "budget", r.settings.RestartBudget)
	}
}

// runAgent spawns one agent, serves its link and waits for it to end.
// It returns how the process ended; err is set when the engine refused
// it (a failed sandbox report) or could not start it.
func (r *Runtime) runAgent(ctx context.Context) (how string, err error) {
	cmd, err := r.agentCommand()
	if err != nil {
		return "not started: " + err.Error(), err
	}
	pair, err := agentlink.NewPair()
	if err != nil {
		return "not started: " + err.Error(), err
	}
	defer pair.Close()
	files, env, err := pair.Attach(cmd.ExtraFiles, cmd.Env)
	if err != nil {
		return "not started: " + err.Error(), err
	}
	cmd.ExtraFiles, cmd.Env = files, env
	spawned, mono := r.opts.Now(), time.Now()
	if err := cmd.Start(); err != nil {
		return "not started: " + err.Error(), fmt.Errorf("engine: start agent: %w", err)
	}
	conn := newAgentConn(r, cmd.Process.Pid, spawned, mono)
	lctx, lcancel := context.WithCancel(context.WithoutCancel(ctx)) // the link outlives ctx until the agent had its Shutdown
	defer lcancel()
	srv, err := pair.Serve(lctx, cmd.Process.Pid, agentlink.Config{Agent: conn, Logger: r.log,
		Refused: func(e *agentlink.RefusedError) {
			r.appendAudit(ctx, audit.Event{Type: audit.IntegrityViolation, Rule: "agent_link_refused", Decision: "BLOCK",
				Reason: e.Error(), Detail: audit.Detail{Code: "agent_link_refused"}})
		}})
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return "not served: " + err.Error(), err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		waitErr = r.stopAgent(conn, cmd, exited)
	case <-conn.refused:
		waitErr = r.stopAgent(conn, cmd, exited)
	}
	srv.Stop()
	conn.close()
	r.setAgent(nil)
	if rf := conn.refusedFor(); rf != nil {
		return "refused: " + rf.Reason, rf
	}
	if waitErr == nil {
		return "exited with status 0", nil
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && ee.ExitCode() == proc.ExitSandbox {
		rf := &SandboxRefusedError{Reason: "the agent could not apply its sandbox (its message is in the engine's log)"}
		r.appendAudit(ctx, audit.Event{Type: audit.SandboxCanaryResult, Decision: "BLOCK", Rule: RuleSandboxReport,
			Reason: rf.Reason, Detail: audit.Detail{Code: "sandbox_failed"}})
		return "refused: " + rf.Reason, rf
	}
	return waitErr.Error(), nil
}

// stopAgent asks the agent to shut down, waits ShutdownGrace, then kills it.
func (r *Runtime) stopAgent(conn *agentConn, cmd *exec.Cmd, exited <-chan error) error {
	conn.shutdown("engine stopping", r.opts.ShutdownGrace)
	t := time.NewTimer(r.opts.ShutdownGrace)
	defer t.Stop()
	select {
	case err := <-exited:
		return err
	case <-t.C:
		_ = cmd.Process.Kill()
		return <-exited
	}
}

// agentCommand builds the agent's command with its cleared environment:
// the base AgentEnv and the sandbox switch, never a provider key (the
// link's fd and token are added by agentlink).
func (r *Runtime) agentCommand() (*exec.Cmd, error) {
	var cmd *exec.Cmd
	if r.opts.AgentCommand != nil {
		c, err := r.opts.AgentCommand()
		if err != nil {
			return nil, fmt.Errorf("engine: agent command: %w", err)
		}
		cmd = c
	} else {
		// The agent starts from the engine's own open executable, never
		// by path: a command may have replaced the file at that path.
		exe, err := sandbox.Self()
		if err != nil {
			return nil, fmt.Errorf("engine: the agent's executable: %w", err)
		}
		cmd = exec.Command(exe, "agent")
	}
	mode := "on"
	if r.settings.SandboxOff {
		mode = "off"
	}
	cmd.Env = append(append([]string{}, r.opts.AgentEnv...), EnvAgentSandbox+"="+mode)
	if r.probe != nil {
		pe, err := probeEnv(r.opts.Root, r.opts.Home, r.probe.addr())
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, pe)
	}
	cmd.Dir = "/"
	cmd.Stdin = nil
	out := r.opts.AgentOutput
	if out == nil {
		out = os.Stderr
	}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, nil
}
