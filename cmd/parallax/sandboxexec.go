package main

import (
	"os"

	"github.com/parallax/parallax/sandbox"
	"github.com/spf13/cobra"
)

// newSandboxExecCmd is the hidden re-exec target of sandbox.CommandSpec:
// it applies a command's sandbox to itself, then execs the command. It
// never returns on success; on failure it exits with
// sandbox.ExitSandboxFailed and a one-line reason on stderr.
func newSandboxExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                sandbox.ExecArg + " SPEC-JSON -- COMMAND [ARG...]",
		Short:              "Run a command in its kernel sandbox (internal)",
		Hidden:             true,
		DisableFlagParsing: true, // everything after the name belongs to ExecMain
		Args:               cobra.ArbitraryArgs,
		Run: func(_ *cobra.Command, args []string) {
			os.Exit(sandbox.ExecMain(args))
		},
	}
}
