package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/spf13/cobra"
)

func newIFCCmd() *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "ifc",
		Short: "Information-flow labels of an initialised workspace",
		Long: `The activity table holds the files that received classified data (a
secret copied into /tmp/x, a report written from a tax file): later reads
of them, in any session, inherit the label, so data cannot be laundered
through an intermediate file.

  parallax ifc list    tracked paths with their level, labels and source
  parallax ifc sweep   drop the labels of files that no longer exist`,
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory)")
	cmd.AddCommand(newIFCListCmd(&workspace), newIFCSweepCmd(&workspace))
	return cmd
}

// openWorkspace opens an initialised workspace (default: the current
// directory).
func openWorkspace(cmd *cobra.Command, dir string) (*pxworkspace.Workspace, error) {
	root, err := resolveWorkspace(cmd.ErrOrStderr(), dir)
	if err != nil {
		return nil, err
	}
	return pxworkspace.Open(cmd.Context(), root)
}

func newIFCListCmd(workspace *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tracked paths and their labels",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			ws, err := openWorkspace(cmd, *workspace)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, ws.Close()) }()
			entries, err := ifc.List(cmd.Context(), ws.IFCStore())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			return writeActivity(cmd.OutOrStdout(), entries)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON instead of a table")
	return cmd
}

func writeActivity(w io.Writer, entries []ifc.Activity) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no tracked paths")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tLEVEL\tLABELS\tSOURCE\tSESSION\tUPDATED")
	for _, a := range entries {
		labels := strings.Join(a.Labels, ",")
		if labels == "" {
			labels = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Path, a.Level, labels, a.Source, a.Session,
			a.Updated.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

func newIFCSweepCmd(workspace *string) *cobra.Command {
	return &cobra.Command{
		Use:   "sweep",
		Short: "Drop the labels of files that no longer exist (each drop is audited)",
		Long: `Removes activity-table entries whose files are gone. A file whose
existence cannot be checked keeps its label (dropping it is the unsafe
direction) and is reported. Every dropped label is appended to the audit
chain as IFCLabelDropped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			ws, err := openWorkspace(cmd, *workspace)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, ws.Close()) }()
			gone, sweepErr := ifc.Sweep(cmd.Context(), ws.IFCStore(), ifc.FileExists)
			for _, a := range gone {
				e := audit.Event{Type: audit.IFCLabelDropped, Session: a.Session,
					Detail: audit.Detail{Code: "file_gone", Path: a.Path, Message: "level " + a.Level.String()}}
				if _, err := ws.Audit.Append(cmd.Context(), e); err != nil {
					return errors.Join(sweepErr, fmt.Errorf("audit the drop of %s: %w", a.Path, err))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "dropped %s (%s)\n", a.Path, a.Level)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d label(s) dropped\n", len(gone))
			return sweepErr
		},
	}
}
