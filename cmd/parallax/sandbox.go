package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// newSandboxCmd groups what explains the per-command kernel sandbox.
func newSandboxCmd() *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Explain the kernel sandbox each command of the own agent runs in",
	}
	explain := &cobra.Command{
		Use:   "explain COMMAND",
		Short: "Show what the kernel would let COMMAND do in this workspace (nothing is run or changed)",
		Long: `explain derives, from the gate's analysis of COMMAND and the workspace's
settings (agent.command.*), the sandbox the engine would run it in: its
namespaces, network (the egress proxy's hosts and registries), the files it
may write exactly, the caches it may add to, what is hidden, masked and
read-only, and its limits. Nothing is run and nothing on disk changes. The
gate's own verdict is parallax policy explain.`,
		Example: `  parallax sandbox explain 'go test ./...'
  parallax sandbox explain --json 'curl -s https://example.com/x -o out; make'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			cfg, err := pxworkspace.LoadConfig(root)
			if err != nil {
				return err
			}
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("the home directory: %w", err)
			}
			p, err := engine.ExplainCommandSandbox(root, home, cfg.AgentSettings(), strings.Join(args, " "))
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(p)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), p.String())
			return err
		},
	}
	explain.Flags().BoolVar(&asJSON, "json", false, "print the typed policy as JSON")
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.AddCommand(explain)
	return cmd
}
