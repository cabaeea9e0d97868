package main

import (
	"github.com/parallax/parallax/shield"
	"github.com/spf13/cobra"
)

func newShieldCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shield",
		Short: "Evaluate actions through the gate without running them",
	}
	cmd.AddCommand(newShieldEvaluateCmd(), newShieldBenchCmd())
	return cmd
}

func newShieldEvaluateCmd() *cobra.Command {
	var workspace, home, policy string
	cmd := &cobra.Command{
		Use:   "evaluate",
		Short: "Read actions as JSON Lines on stdin, write one verdict line each",
		Long: `Reads JSON Lines on stdin and writes one verdict line per input line, in
order, flushing each line. Nothing is executed.

Input line:
  {"session":"s1","type":"read_file","payload":{"path":"~/notes.txt"},"result":"..."}

Output line:
  {"decision":"ALLOW|BLOCK|ESCALATE","stage":"...","tier":0,"rule":"...",
   "reason":"...","hash":"sha256:...","ns":12345}

ESCALATE means the deterministic tiers could not decide and a judge or a
human must; no LLM is used here. A malformed line gets a BLOCK verdict and
the stream goes on. HOME decides what ~ means; shell commands are analysed
as if run in the workspace.`,
		Example: `  echo '{"type":"execute_command","payload":{"command":"cat ~/.ssh/id_rsa"}}' | parallax shield evaluate
  parallax shield evaluate --workspace ~/project --policy strict < actions.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gate, err := newGate(workspace, home, policy)
			if err != nil {
				return err
			}
			return shield.Stream(cmd.Context(), gate, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: current directory)")
	cmd.Flags().StringVar(&home, "home", "", "what ~ means (default: $HOME)")
	cmd.Flags().StringVar(&policy, "policy", "default", "policy preset (default, permissive, strict) or policy file")
	return cmd
}
