package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/corpus"
	"github.com/parallax/parallax/shield"
)

// The gate is the evaluator the corpus runs against.
var _ corpus.Evaluator = (*shield.Gate)(nil)

// exitMustFailed is the exit status when a must-pass case fails.
const exitMustFailed = 1

func newEvalCmd() *cobra.Command {
	var workspace, home, policy, internals string
	var asJSON, failures bool
	cmd := &cobra.Command{
		Use:   "eval PATH...",
		Short: "Run a case corpus through the gate and report what it decided",
		Long: `Loads corpus cases (YAML files, or directories walked for *.yaml) and runs
every case through the gate, each in its own session named after the case
id. Nothing is executed. A case's outcome is the most severe decision over
its steps; it passes when the outcome equals its expect, and an attack that
expects ESCALATE also passes when it is BLOCKed.

Prints one row per category and the totals. Failing must-pass cases are
always listed; --failures lists every failing case. Exits non-zero when a
must-pass case fails.

The workspace and home need not exist: by default the gate judges as if the
workspace were /home/dev/project and HOME /home/dev, the setting the shipped
corpus is written for.`,
		Example: `  parallax eval testdata/corpus
  parallax eval testdata/corpus/exfiltration --failures
  parallax eval testdata/corpus --policy strict --json > report.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			shield.LongRunning()
			cases, err := corpus.Load(args...)
			if err != nil {
				return err
			}
			ws, err := dirOrCwd(workspace) // a measurement: the current directory, never a workspace above
			if err != nil {
				return err
			}
			cfg, err := gateConfig(cmd.ErrOrStderr(), ws, home, policy)
			if err != nil {
				return err
			}
			gates := corpus.ShieldGates(cfg)
			switch internals {
			case "case":
			case "visible", "hidden":
				base, forced := gates, internals == "visible"
				gates = func(p string, _ bool) (corpus.Evaluator, error) { return base(p, forced) }
			default:
				return fmt.Errorf("eval: --internals %q: want case, visible or hidden", internals)
			}
			if _, err := gates("", false); err != nil {
				return err // the run's own policy must load; cases naming another get their own gate
			}
			report := corpus.Run(cmd.Context(), gates, cases)
			if err := writeEvalReport(cmd.OutOrStdout(), report, asJSON, failures); err != nil {
				return err
			}
			if n := len(report.MustFailures()); n > 0 {
				return &exitError{code: exitMustFailed,
					err: fmt.Errorf("eval: %d must-pass case(s) failed", n)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "/home/dev/project", "workspace root the cases are written for")
	cmd.Flags().StringVar(&home, "home", "/home/dev", "what ~ means")
	cmd.Flags().StringVar(&policy, "policy", "default", "policy preset (default, permissive, strict) or policy file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the report as JSON instead of a table")
	cmd.Flags().BoolVar(&failures, "failures", false, "list every failing case, not only must-pass ones")
	cmd.Flags().StringVar(&internals, "internals", "case", "judge with the workspace's .parallax hidden by the executor (hidden: the own agent), "+
		"visible to the command (visible: the Claude Code hook, MCP proxy, HTTP API), or as each case says (case)")
	return cmd
}

func writeEvalReport(w io.Writer, r *corpus.Report, asJSON, all bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	r.WriteTable(w)
	list, title := r.MustFailures(), "must-pass failures"
	if all {
		list, title = r.Failures, "failures"
	}
	if len(list) > 0 {
		if _, err := fmt.Fprintf(w, "\n%s (%d):\n", title, len(list)); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		corpus.WriteFailures(w, list)
	}
	return nil
}
