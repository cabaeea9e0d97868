package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/agent/proc"
)

// newAgentCmd is the agent process the engine spawns; never for users.
func newAgentCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "agent",
		Short:  "The sandboxed agent process (spawned by the engine; not for direct use)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
			defer stop()
			code := proc.Main(ctx, proc.RunOptions{Sandbox: agentSandbox, Version: version()})
			if code != proc.ExitOK {
				os.Exit(code) // proc.Main said why on stderr
			}
			return nil
		},
	}
}
