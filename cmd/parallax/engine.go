package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// Exit codes of `parallax engine` (and of `parallax start` when the
// engine stops).
const (
	exitEngineRestart = 3 // a client asked for a clean restart: the manager starts a new engine
	exitCrashLoop     = 4 // the agent crashed past its restart budget
	exitSandboxFailed = 5 // the agent's sandbox report failed
	exitEngineRunning = 6 // another engine holds the workspace
)

// newEngineCmd runs the engine of one workspace in the foreground; the
// manager of parallax start runs it.
func newEngineCmd() *cobra.Command {
	var dir, home string
	cmd := &cobra.Command{
		Use:    "engine",
		Short:  "Run the engine of a workspace (spawned by parallax start; not for direct use)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, h, err := runtimePaths(cmd, dir, home)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runEngine(ctx, cmd.ErrOrStderr(), root, h)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&home, "home", "", "what ~ means (default: $HOME)")
	return cmd
}

// runtimePaths resolves an initialised workspace and the home directory.
func runtimePaths(cmd *cobra.Command, dir, home string) (root, h string, err error) {
	root, err = resolveWorkspace(cmd.ErrOrStderr(), dir)
	if err != nil {
		return "", "", err
	}
	if !pxworkspace.Initialised(root) {
		return "", "", fmt.Errorf("%s: %w", root, pxworkspace.ErrNotInitialised)
	}
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return "", "", fmt.Errorf("home directory: %w", err)
		}
	}
	if home, err = dirOrCwd(home); err != nil {
		return "", "", err
	}
	return root, home, nil
}

// runEngine runs one engine until it stops, mapping how it stopped to
// the exit codes above.
func runEngine(ctx context.Context, stderr io.Writer, root, home string) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rt, err := engine.OpenRuntime(ctx, engine.RuntimeOptions{Root: root, Home: home, Logger: log, Version: version()})
	var running *engine.RunningError
	if errors.As(err, &running) {
		return &exitError{code: exitEngineRunning, err: err}
	}
	if err != nil {
		return err
	}
	if rt.Settings().SandboxOff {
		fmt.Fprintln(stderr, sandboxOffBanner)
	}
	fmt.Fprintf(stderr, "parallax engine: pid %d, workspace %s, socket %s\n", os.Getpid(), root, rt.Socket())
	err = rt.Run(ctx)
	if cerr := rt.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var crash *engine.CrashLoopError
	var refused *engine.SandboxRefusedError
	switch {
	case err == nil:
		fmt.Fprintln(stderr, "parallax engine: stopped")
		return nil
	case errors.Is(err, engine.ErrRestart):
		fmt.Fprintln(stderr, "parallax engine: restarting")
		return &exitError{code: exitEngineRestart, err: err}
	case errors.As(err, &crash):
		return &exitError{code: exitCrashLoop, err: err}
	case errors.As(err, &refused):
		return &exitError{code: exitSandboxFailed, err: err}
	}
	return err
}

const sandboxOffBanner = `
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
!! agent.sandbox is OFF: the agent process runs WITHOUT its kernel sandbox.!!
!! Every tool call still goes through the gate, but a compromised agent    !!
!! process could read your files and reach the network. Every start is     !!
!! audited. Remove "sandbox: off" from .parallax/config.yaml to turn it on.!!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!`
