package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// exitChronicle is the exit status of a refused or failed chronicle
// command (unknown id, cancelled rollback, broken chain).
const exitChronicle = 1

func newChronicleCmd() *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "chronicle",
		Short: "List, diff and roll back the snapshots taken before every write",
		Long: `Before an action writes, deletes, moves or copies files (or runs a shell
command with write effects), Parallax snapshots every path it is about to
change: file contents (stored once, by SHA-256), modes, times, symlinks,
and paths that did not exist yet. The snapshots live in
WORKSPACE/.parallax/chronicle and its database, hash-chained.

Without a subcommand, lists the snapshots, oldest first: id, time (UTC),
entries, content size, bytes newly stored, session, reason and paths.

  diff ID       what changed since snapshot ID (unified diffs for small text files)
  rollback ID   restore the paths of snapshot ID exactly as they were
  prune         delete old snapshots and the contents only they needed
  verify        check the hash chain and the stored contents`,
		Example: `  parallax chronicle --workspace ~/project
  parallax chronicle diff 12
  parallax chronicle rollback 12
  parallax chronicle prune --keep 200 --max-age 30d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openChronicle(cmd, workspace)
			if err != nil {
				return err
			}
			defer c.Close()
			list, err := c.List(cmd.Context())
			if err != nil {
				return err
			}
			return write(cmd, chronicleTable(list))
		},
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.AddCommand(newChronicleDiffCmd(&workspace), newChronicleRollbackCmd(&workspace),
		newChroniclePruneCmd(&workspace), newChronicleVerifyCmd(&workspace))
	return cmd
}

// openChronicle opens the workspace's chronicle; it refuses to create one
// where none exists.
func openChronicle(cmd *cobra.Command, workspace string) (*chronicle.Chronicle, error) {
	ws, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
	if err != nil {
		return nil, err
	}
	db := filepath.Join(ws, ".parallax", "parallax.db")
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		return nil, &exitError{code: exitChronicle, err: fmt.Errorf("no chronicle in %s (no %s)", ws, db)}
	}
	return chronicle.Open(cmd.Context(), ws, chronicle.Options{})
}

// parseSnapshotID accepts "12" or "#12".
func parseSnapshotID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &exitError{code: exitChronicle, err: fmt.Errorf("snapshot id %q: want a positive number (see `parallax chronicle`)", s)}
	}
	return id, nil
}

// chronicleErr turns "not found" into a hint.
func chronicleErr(id int64, err error) error {
	if errors.Is(err, chronicle.ErrNotFound) {
		return &exitError{code: exitChronicle, err: fmt.Errorf("no snapshot #%d (see `parallax chronicle` for the list)", id)}
	}
	if errors.Is(err, chronicle.ErrTampered) {
		return &exitError{code: exitChronicle, err: err}
	}
	return err
}

func chronicleTable(list []chronicle.Snapshot) string {
	if len(list) == 0 {
		return "no snapshots\n"
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME (UTC)\tENTRIES\tSIZE\tNEW\tSESSION\tREASON\tPATHS")
	for _, s := range list {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.CreatedAt.UTC().Format(time.DateTime),
			s.Files, humanBytes(s.Bytes), humanBytes(s.NewBytes), dashIfEmpty(s.Session), oneLine(s.Reason, 40), pathList(s.Paths))
	}
	_ = tw.Flush()
	return b.String()
}

func pathList(ps []string) string {
	const show = 3
	if len(ps) <= show {
		return strings.Join(ps, " ")
	}
	return strings.Join(ps[:show], " ") + fmt.Sprintf(" (+%d)", len(ps)-show)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps table cells on one line and bounded.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%dB", n)
	}
}

func newChronicleDiffCmd(workspace *string) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "diff ID",
		Short: "Show what changed since a snapshot",
		Long: `Compares snapshot ID with the current state of its paths. One line per
changed path: M (modified: content, mode, link target or type), A (created
since), D (deleted since); then a unified diff for text files up to 64 KiB.
--all also lists unchanged paths (=). Nothing is modified.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSnapshotID(args[0])
			if err != nil {
				return err
			}
			c, err := openChronicle(cmd, *workspace)
			if err != nil {
				return err
			}
			defer c.Close()
			changes, err := c.Diff(cmd.Context(), id)
			if err != nil {
				return chronicleErr(id, err)
			}
			return write(cmd, chronicleDiffText(id, changes, all))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list unchanged paths")
	return cmd
}

var changeMark = map[chronicle.ChangeKind]string{
	chronicle.Unchanged: "=", chronicle.Modified: "M", chronicle.Created: "A", chronicle.Deleted: "D",
}

func chronicleDiffText(id int64, changes []chronicle.Change, all bool) string {
	var b strings.Builder
	counts := map[chronicle.ChangeKind]int{}
	var unified []string
	for _, ch := range changes {
		counts[ch.Kind]++
		if ch.Kind == chronicle.Unchanged && !all {
			continue
		}
		fmt.Fprintf(&b, "%s %s", changeMark[ch.Kind], ch.Path)
		if ch.Detail != "" {
			fmt.Fprintf(&b, " (%s)", ch.Detail)
		}
		b.WriteByte('\n')
		if ch.Unified != "" {
			unified = append(unified, ch.Unified)
		}
	}
	if len(unified) > 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Join(unified, ""))
	}
	fmt.Fprintf(&b, "since #%d: %d modified, %d created, %d deleted, %d unchanged\n", id,
		counts[chronicle.Modified], counts[chronicle.Created], counts[chronicle.Deleted], counts[chronicle.Unchanged])
	return b.String()
}

func newChronicleRollbackCmd(workspace *string) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "rollback ID",
		Short: "Restore the paths of a snapshot exactly as they were",
		Long: `Restores every path of snapshot ID: contents, modes and times, symlinks,
deleted files and directories; paths that did not exist then are removed,
and so is whatever appeared inside a snapshotted directory since.

The stored contents are verified against their hashes before anything is
touched (a damaged snapshot is refused, naming the file), and the current
state is snapshotted first, so the rollback can itself be rolled back: the
command prints that snapshot's id. Each file is replaced atomically.

Shows what will change and asks for confirmation on the terminal unless
--yes is given. The rollback is recorded in the workspace's audit chain
(TransactionRollback: the snapshot, the undo snapshot, the counts, or the
error); when the chain cannot be opened nothing is rolled back.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSnapshotID(args[0])
			if err != nil {
				return err
			}
			c, err := openChronicle(cmd, *workspace)
			if err != nil {
				return err
			}
			defer c.Close()
			if !yes {
				ok, err := confirmRollback(cmd, c, id)
				if err != nil || !ok {
					return err
				}
			}
			return auditedRollback(cmd, c, id)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// auditedRollback rolls back to snapshot id and records it in the
// workspace's audit chain. The chain is opened first: a rollback that
// could not be recorded does not start. A failed rollback is recorded too.
func auditedRollback(cmd *cobra.Command, c *chronicle.Chronicle, id int64) (err error) {
	log, err := audit.Open(audit.DefaultPath(c.Root()), audit.Options{})
	if err != nil {
		return &exitError{code: exitChronicle, err: fmt.Errorf("nothing was rolled back: the audit chain cannot record it (%w); "+
			"run `parallax doctor`", err)}
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	res, err := pxworkspace.AuditedRollback(cmd.Context(), log, c, id, pxworkspace.Rollback{})
	if err != nil {
		return chronicleErr(id, err)
	}
	return write(cmd, fmt.Sprintf("rolled back to #%d: %d restored, %d removed\nundo with: parallax chronicle rollback %d\n",
		id, res.Restored, res.Removed, res.Undo.ID))
}

// confirmRollback shows the pending changes and reads y/N from stdin.
func confirmRollback(cmd *cobra.Command, c *chronicle.Chronicle, id int64) (bool, error) {
	changes, err := c.Diff(cmd.Context(), id)
	if err != nil {
		return false, chronicleErr(id, err)
	}
	n := 0
	for _, ch := range changes {
		if ch.Kind != chronicle.Unchanged {
			n++
		}
	}
	if n == 0 {
		return false, write(cmd, fmt.Sprintf("nothing to roll back: the paths of #%d are as they were\n", id))
	}
	text := chronicleDiffText(id, changes, false)
	if err := write(cmd, text+fmt.Sprintf("Roll back %d path(s) to #%d? [y/N] ", n, id)); err != nil {
		return false, err
	}
	line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if err != nil && line == "" {
		return false, &exitError{code: exitChronicle, err: errors.New("rollback cancelled: no answer (use --yes when not on a terminal)")}
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, &exitError{code: exitChronicle, err: errors.New("rollback cancelled")}
}

func newChroniclePruneCmd(workspace *string) *cobra.Command {
	var keep int
	var maxAge string
	cmd := &cobra.Command{
		Use:   "prune --keep N | --max-age AGE",
		Short: "Delete old snapshots and the contents only they needed",
		Long: `Keeps the newest N snapshots (--keep) and none older than AGE (--max-age:
a duration such as 36h, or days and weeks: 30d, 2w); with both, a snapshot
must satisfy both to stay. Snapshots go oldest first, so the hash chain of
the rest still verifies. Stored contents no remaining snapshot references
are deleted. The prune is recorded in the workspace's audit chain
(ConfigChanged, chronicle_pruned: the limits and the counts, or the error);
when the chain cannot be opened nothing is deleted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keep <= 0 && maxAge == "" {
				return &exitError{code: exitChronicle, err: errors.New("prune: give --keep N (N ≥ 1) and/or --max-age AGE")}
			}
			var age time.Duration
			if maxAge != "" {
				var err error
				if age, err = chronicle.ParseAge(maxAge); err != nil || age == 0 {
					return &exitError{code: exitChronicle, err: fmt.Errorf("prune --max-age: %q: want a positive age like 36h, 30d or 2w", maxAge)}
				}
			}
			c, err := openChronicle(cmd, *workspace)
			if err != nil {
				return err
			}
			defer c.Close()
			return auditedPrune(cmd, c, keep, maxAge, age)
		},
	}
	cmd.Flags().IntVar(&keep, "keep", 0, "keep at most N snapshots")
	cmd.Flags().StringVar(&maxAge, "max-age", "", "delete snapshots older than AGE (36h, 30d, 2w)")
	return cmd
}

// auditedPrune prunes and records it in the workspace's audit chain; the
// chain is opened first, so a prune that could not be recorded does not
// start. A failed prune is recorded too.
func auditedPrune(cmd *cobra.Command, c *chronicle.Chronicle, keep int, maxAge string, age time.Duration) (err error) {
	log, err := pxworkspace.OpenChain(c.Root(), "prune")
	if err != nil {
		return &exitError{code: exitChronicle, err: err}
	}
	defer func() { err = errors.Join(err, log.Close()) }()
	res, perr := c.Prune(cmd.Context(), keep, age)
	limits := fmt.Sprintf("--keep %d --max-age %q", keep, maxAge)
	ev := audit.Event{Type: audit.ConfigChanged, Stage: "human", Reason: "chronicle prune " + limits,
		Detail: audit.Detail{Code: "chronicle_pruned", Count: res.Snapshots,
			Message: fmt.Sprintf("deleted %d snapshot(s) and %d stored file(s), %d bytes", res.Snapshots, res.Objects, res.Bytes)}}
	if perr != nil {
		ev.Detail.Code, ev.Detail.Message = "chronicle_prune_failed", perr.Error()
	}
	if _, aerr := log.Append(context.WithoutCancel(cmd.Context()), ev); aerr != nil {
		return errors.Join(perr, fmt.Errorf("the prune was not recorded in the audit chain: %w", aerr))
	}
	if perr != nil {
		return perr
	}
	return write(cmd, fmt.Sprintf("deleted %d snapshot(s) and %d stored file(s) (%s)\n",
		res.Snapshots, res.Objects, humanBytes(res.Bytes)))
}

func newChronicleVerifyCmd(workspace *string) *cobra.Command {
	var deep bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the snapshot hash chain and the stored contents",
		Long: `Checks every snapshot record against its hash and its predecessor, every
manifest against its hash, and that every stored content exists; --deep
also re-hashes every stored content. Reports the first problem with the
snapshot (and path) it concerns; exit status 1 then.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openChronicle(cmd, *workspace)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Verify(cmd.Context(), deep); err != nil {
				return &exitError{code: exitChronicle, err: err}
			}
			list, err := c.List(cmd.Context())
			if err != nil {
				return err
			}
			return write(cmd, fmt.Sprintf("ok: %d snapshot(s), chain intact\n", len(list)))
		},
	}
	cmd.Flags().BoolVar(&deep, "deep", false, "also re-hash every stored content")
	return cmd
}
