package main

import (
	"errors"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
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
human must. When the workspace's config.yaml names a shield model (llm:),
that model judges escalations as tier 2; otherwise no LLM is used and they
come back ESCALATE. A malformed line (over 1 MiB and 64 KiB, not one strict
JSON object, nested past 64 levels, a string that is not UTF-8) gets a
BLOCK verdict, recorded in the audit chain when there is one, and the
stream goes on. HOME decides what ~ means; shell commands are analysed
as if run in the workspace.

"result" (optional) is what the tool returned when the action ran: it is
classified (DLP) and taints the session, so later lines of the same session
are judged with that taint. "parent" (optional) names the session that
spawned this one (a sub-agent): it starts with its parent's taint, and what
it sees reaches the parent.

Session state lives for the life of the process. When the workspace is
initialised (it holds .parallax/), it lives in the workspace database
instead, so separate invocations share it, and every verdict is appended to
the workspace's audit chain (.parallax/audit.jsonl) before it is written.`,
		Example: `  echo '{"type":"execute_command","payload":{"command":"cat ~/.ssh/id_rsa"}}' | parallax shield evaluate
  parallax shield evaluate --workspace ~/project --policy strict < actions.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			shield.LongRunning()
			cfg, err := gateConfig(cmd.ErrOrStderr(), workspace, home, policy)
			if err != nil {
				return err
			}
			var ws *pxworkspace.Workspace
			if pxworkspace.Initialised(cfg.Workspace) {
				// Separate invocations (hooks) share the workspace's taint
				// and labels, and every decision joins its audit chain.
				if ws, err = pxworkspace.Open(cmd.Context(), cfg.Workspace); err != nil {
					return err
				}
				wcfg := ws.GateConfig(cfg.Home)
				if cmd.Flags().Changed("policy") {
					wcfg.Policy = cfg.Policy // the flag overrides the workspace's config
				}
				cfg = wcfg
			}
			gate, err := shield.New(cfg)
			if err == nil {
				err = shield.Stream(cmd.Context(), gate, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			if ws != nil {
				err = errors.Join(err, ws.Close())
			}
			return err
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory)")
	cmd.Flags().StringVar(&home, "home", "", "what ~ means (default: $HOME)")
	cmd.Flags().StringVar(&policy, "policy", "default", "policy preset (default, permissive, strict) or policy file (default: the workspace's config, else default)")
	return cmd
}
