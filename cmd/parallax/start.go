package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/parallax/parallax/internal/engine"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// engineWait bounds how long the commands wait for an engine to come
// up or go away.
const engineWait = 30 * time.Second

func newStartCmd() *cobra.Command {
	var dir, home string
	var detach, manage bool
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the engine and its sandboxed agent, and open the terminal chat",
		Long: `Starts the engine of the workspace (one per workspace), which spawns the
sandboxed agent, and opens the terminal chat on it. Leaving the chat stops
the engine. With --detach the engine runs in the background (its log in
.parallax/engine.log); parallax chat attaches to it, parallax stop ends it.

A crashed agent is restarted within agent.restart_budget crashes per
agent.restart_window (5 in 60s); past it the engine stops. Exit codes: 0
stopped, 4 the agent kept crashing, 5 the agent's sandbox failed, 6 an
engine already runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, h, err := runtimePaths(cmd, dir, home)
			if err != nil {
				return err
			}
			if manage {
				return manageEngine(cmd.Context(), cmd.OutOrStdout(), root, h)
			}
			if pid, _ := engine.EnginePid(root); pid != 0 {
				return &exitError{code: exitEngineRunning, err: fmt.Errorf("an engine (pid %d) already runs for %s: use parallax chat, or parallax stop", pid, root)}
			}
			if detach {
				return startDetached(cmd, root, h)
			}
			return startForeground(cmd, root, h)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&home, "home", "", "what ~ means (default: $HOME)")
	cmd.Flags().BoolVar(&detach, "detach", false, "run the engine in the background and return")
	cmd.Flags().BoolVar(&manage, "manage", false, "run the engine manager in the foreground (what --detach starts)")
	_ = cmd.Flags().MarkHidden("manage")
	return cmd
}

// manageEngine runs engines one after the other: a clean restart (exit
// 3) starts the next, anything else ends the manager with the engine's
// status.
func manageEngine(ctx context.Context, out io.Writer, root, home string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	for {
		cmd := exec.Command(self, "engine", "--workspace", root, "--home", home) //nolint:gosec // our own binary
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start the engine: %w", err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			err = <-done
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			return err
		}
		switch code {
		case 0:
			return nil
		case exitEngineRestart:
			fmt.Fprintln(out, "parallax: the engine restarts")
			continue
		}
		return &exitError{code: code, err: fmt.Errorf("the engine stopped with exit status %d (see %s)", code, engine.LogPath(root))}
	}
}

// startDetached starts the manager in its own session, its output in
// the engine log, and waits for the engine to answer.
func startDetached(cmd *cobra.Command, root, home string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	logPath := engine.LogPath(root)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the engine log: %w", err)
	}
	defer logf.Close()
	mgr := exec.Command(self, "start", "--manage", "--workspace", root, "--home", home) //nolint:gosec // our own binary
	mgr.Stdout, mgr.Stderr = logf, logf
	mgr.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := mgr.Start(); err != nil {
		return fmt.Errorf("start the engine manager: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = mgr.Wait(); close(exited) }()
	c, err := waitEngine(cmd.Context(), root, exited)
	if err != nil {
		return fmt.Errorf("%w (see %s)", err, logPath)
	}
	defer c.Close()
	st, err := c.Status(cmd.Context(), &pb.StatusRequest{})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "engine pid %d (manager pid %d)\nsocket %s\nlog %s\n", st.GetPid(), mgr.Process.Pid, engine.SocketPath(root), logPath)
	if st.GetSandbox() == "off" {
		fmt.Fprintln(cmd.ErrOrStderr(), sandboxOffBanner)
	}
	return nil
}

// startForeground runs the manager here, with the chat in front; the
// engine stops when the chat ends.
func startForeground(cmd *cobra.Command, root, home string) error {
	logPath := engine.LogPath(root)
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the engine log: %w", err)
	}
	defer logf.Close()
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	exited := make(chan struct{})
	var mgrErr error
	go func() {
		mgrErr = manageEngine(ctx, logf, root, home)
		close(exited)
	}()
	c, err := waitEngine(cmd.Context(), root, exited)
	if err != nil {
		cancel()
		<-exited
		return fmt.Errorf("%w (see %s)", err, logPath)
	}
	chatErr := runChat(cmd.Context(), c, "", nil, nil)
	_, _ = c.Shutdown(context.WithoutCancel(ctx), &pb.ShutdownRequest{Reason: "the chat ended"})
	c.Close()
	<-exited
	return errors.Join(chatErr, mgrErr)
}

// waitEngine connects to the workspace's engine, waiting until it and
// its agent are up, until engineWait passes or exited closes.
func waitEngine(ctx context.Context, root string, exited <-chan struct{}) (*engine.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, engineWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := engine.DialClient(ctx, root)
		if err == nil {
			st, serr := c.Status(ctx, &pb.StatusRequest{})
			if serr == nil && st.GetAgentPid() != 0 {
				return c, nil
			}
			c.Close()
			err = errors.New("its agent is not running yet")
			if serr != nil {
				err = serr
			}
		}
		select {
		case <-exited:
			return nil, errors.New("the engine stopped before its agent came up")
		case <-ctx.Done():
			return nil, fmt.Errorf("the engine did not answer: %w", err)
		case <-tick.C:
		}
	}
}

func newStopCmd() *cobra.Command {
	return shutdownCmd("stop", "Stop the workspace's engine and its agent", false)
}

func newRestartCmd() *cobra.Command {
	return shutdownCmd("restart", "Restart the workspace's engine and its agent (re-reading the configuration)", true)
}

func shutdownCmd(use, short string, restart bool) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), dir)
			if err != nil {
				return err
			}
			c, err := engine.DialClient(cmd.Context(), root)
			if err != nil {
				return err
			}
			st, err := c.Status(cmd.Context(), &pb.StatusRequest{})
			if err != nil {
				c.Close()
				return err
			}
			_, err = c.Shutdown(cmd.Context(), &pb.ShutdownRequest{Restart: restart, Reason: "parallax " + use})
			c.Close()
			// A connection cut before the answer arrived is the engine
			// going away: whether it went (and came back) is what
			// waitShutdown checks.
			if err != nil && status.Code(err) != codes.Unavailable {
				return err
			}
			return waitShutdown(cmd, root, st.GetPid(), restart)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	return cmd
}

// waitShutdown waits until the engine pid has released the workspace
// and, for a restart, a new engine answers.
func waitShutdown(cmd *cobra.Command, root string, old int64, restart bool) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), engineWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		pid, err := engine.EnginePid(root)
		if err != nil {
			return err
		}
		if !restart && pid == 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "engine pid %d stopped\n", old)
			return nil
		}
		if restart && pid != 0 && int64(pid) != old {
			if c, err := engine.DialClient(ctx, root); err == nil {
				c.Close()
				fmt.Fprintf(cmd.OutOrStdout(), "engine restarted: pid %d (was %d)\n", pid, old)
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the engine (pid %d) did not %s in time", old, cmd.Name())
		case <-tick.C:
		}
	}
}

func newStatusCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the engine: sessions, uptime, sandbox, gate decisions, tokens and cost today",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), dir)
			if err != nil {
				return err
			}
			c, err := engine.DialClient(cmd.Context(), root)
			if err != nil {
				return &exitError{code: 3, err: fmt.Errorf("engine: not running for %s", root)}
			}
			defer c.Close()
			st, err := c.Status(cmd.Context(), &pb.StatusRequest{})
			if err != nil {
				return err
			}
			writeStatus(cmd.OutOrStdout(), root, st, time.Now())
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	return cmd
}

func writeStatus(w io.Writer, root string, st *pb.StatusResponse, now time.Time) {
	fmt.Fprint(w, engine.FormatStatus(root, st, now))
}
