package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

func newConfigCmd() *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show or change the workspace configuration (.parallax/config.yaml)",
		Long: `config shows the agent settings in effect and changes config.yaml through
its one writer: every change is checked (the file must still load), the
previous file is kept in .parallax/backups/config/ (the last 100), the new
one is written atomically and read back, and a ConfigChanged entry with the
keys and the file's digests goes into the audit chain. A change the chain
cannot record is not made.`,
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	set := &cobra.Command{
		Use:   "set KEY VALUE [KEY VALUE...]",
		Short: "Set keys (dotted, e.g. agent.max_tool_rounds 40); values are YAML",
		Example: `  parallax config set agent.max_tool_rounds 40
  parallax config set agent.command.timeout 45s agent.daily_budget_usd 2.5
  parallax config set agent.command.caches '[.cache/go-build, go/pkg/mod]'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 || len(args)%2 != 0 {
				return fmt.Errorf("want KEY VALUE pairs, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			if !pxworkspace.Initialised(root) {
				return fmt.Errorf("%s: %w", root, pxworkspace.ErrNotInitialised)
			}
			var sets []pxworkspace.Setting
			for i := 0; i < len(args); i += 2 {
				sets = append(sets, pxworkspace.Setting{Key: args[i], Value: args[i+1]})
			}
			ch, err := pxworkspace.SetConfig(cmd.Context(), root, sets, pxworkspace.SetOptions{})
			if err != nil {
				return err
			}
			if ch.Unchanged {
				fmt.Fprintln(cmd.OutOrStdout(), "config.yaml already says that; nothing changed")
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "set %d key(s); previous file kept as %s; recorded in the audit chain\n", len(ch.Keys), ch.Backup)
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the agent settings in effect (defaults applied)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			cfg, err := pxworkspace.LoadConfig(root)
			if err != nil {
				return err
			}
			s := cfg.AgentSettings()
			sandbox := "on"
			if s.SandboxOff {
				sandbox = "OFF (the agent runs without its kernel sandbox)"
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "file\t%s\n", pxworkspace.ConfigPath(root))
			fmt.Fprintf(w, "policy\t%s\n", cfg.Policy)
			fmt.Fprintf(w, "agent.sandbox\t%s\n", sandbox)
			fmt.Fprintf(w, "agent.daily_budget_usd\t%.2f\n", s.DailyBudgetUSD)
			fmt.Fprintf(w, "agent.max_tool_rounds\t%d\n", s.MaxToolRounds)
			fmt.Fprintf(w, "agent.context_tokens\t%d\n", s.ContextTokens)
			fmt.Fprintf(w, "agent.compact_at\t%.2f\n", s.CompactAt)
			fmt.Fprintf(w, "agent.max_response_tokens\t%d\n", s.MaxResponseTokens)
			fmt.Fprintf(w, "agent.restart_budget\t%d in %s\n", s.RestartBudget, s.RestartWindow)
			fmt.Fprintf(w, "agent.command.timeout\t%s\n", s.CommandTimeout)
			fmt.Fprintf(w, "agent.command.output_cap\t%d\n", s.OutputCap)
			fmt.Fprintf(w, "agent.command.caches\t%v\n", s.Caches)
			return w.Flush()
		},
	}
	cmd.AddCommand(set, show)
	return cmd
}
