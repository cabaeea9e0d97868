package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

func newDoctorCmd() *cobra.Command { return doctorCommandWith(nil, sessionChecks) }

// doctorCommand builds `parallax doctor` without the session checks;
// sandbox replaces the kernel probe (nil: this machine's).
func doctorCommand(sandbox func() []pxworkspace.Check) *cobra.Command {
	return doctorCommandWith(sandbox, nil)
}

// doctorCommandWith builds `parallax doctor`; session adds the checks of
// what a session needs (nil: none).
func doctorCommandWith(sandbox func() []pxworkspace.Check,
	session func(ctx context.Context, root, home string) []pxworkspace.Check) *cobra.Command {
	var workspace string
	var asJSON, noSession bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check a workspace and this kernel's sandbox support, and say what to fix",
		Long: `Doctor checks the workspace without changing it and prints one line per
check, OK, WARN, FAIL or SKIP (could not run because of an earlier failure),
with a fix for each that is not OK:

  workspace      .parallax exists, is a directory with mode 0700, owned by you
  layout         chronicle/ and backups/ exist; no leftovers of an interrupted init
  config         config.yaml parses (version, policy)
  policy         the base policy and the user rules load as the gate loads them, and lint clean
  canary.token   present, mode 0600, 64 hex characters (the value is never shown)
  api.token      the same
  database       opens read-only, passes SQLite's quick check, schema is current
  taint          no taint raise waits in .parallax/taint.pending (written when a full disk
                 kept it out of the database; while one waits every session reads as critical),
                 and none was lost (the file's sticky bit: a raise that could be written nowhere)
  audit          the hash chain and its head verify; entries counted
  chronicle      the snapshot index chain verifies and every stored content exists
  landlock       the kernel's Landlock ABI version, or why it is not available
  seccomp        seccomp filters can be installed
  userns         unprivileged user namespaces are allowed
  model NAME     each model's endpoint answers a TCP connect (3 s) and its api_key_env is set
  cache PATH     each shared toolchain cache commands overlay (agent.command.caches) is a
                 directory of yours, writable by you and not by others, or can be created
  registry HOST  each of agent.command.registries answers a connection through an egress
                 proxy with the workspace's rules (5 s, all at once), as a command's would
  sandboxed run  one command runs in the per-command sandbox as a turn's would: it writes its
                 private TMPDIR and the workspace and reads both back (audited as a sandbox run)
--no-session leaves out the last four kinds (no network, no run).

Missing sandbox features are WARN: the kernel sandbox is for agents Parallax
runs itself; the hook, the MCP proxy and the HTTP API work without it.
HOME decides what ~ means in policies. Exit status 1 when any check FAILs.`,
		Example: `  parallax doctor
  parallax doctor --workspace ~/project --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := resolveWorkspace(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			rep := pxworkspace.Doctor(cmd.Context(), root, pxworkspace.DoctorOptions{
				Home: os.Getenv("HOME"), Sandbox: sandbox})
			if !noSession && session != nil {
				rep.Checks = append(rep.Checks, session(cmd.Context(), root, os.Getenv("HOME"))...)
			}
			if err := writeDoctor(cmd, rep, asJSON); err != nil {
				return err
			}
			if n := rep.Count(pxworkspace.StatusFail); n > 0 {
				return &exitError{code: 1, err: fmt.Errorf("doctor: %d check(s) failed in %s", n, root)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"workspace","ok","checks":[{"name","status","detail","fix"}]}`)
	cmd.Flags().BoolVar(&noSession, "no-session", false, "check the workspace only: no model endpoint or registry probe, no cache check, no sandboxed run")
	return cmd
}

func writeDoctor(cmd *cobra.Command, rep pxworkspace.Report, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(struct {
			Workspace string              `json:"workspace"`
			OK        bool                `json:"ok"`
			Checks    []pxworkspace.Check `json:"checks"`
		}{rep.Workspace, rep.OK(), rep.Checks}, "", "  ")
		if err != nil {
			return fmt.Errorf("doctor: encode report: %w", err)
		}
		return write(cmd, string(b)+"\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "workspace %s\n", rep.Workspace)
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "%-4s  %-12s  %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != pxworkspace.StatusOK {
			fmt.Fprintf(&b, "      %-12s  fix: %s\n", "", c.Fix)
		}
	}
	fmt.Fprintf(&b, "%d ok, %d warning(s), %d failed, %d skipped\n", rep.Count(pxworkspace.StatusOK),
		rep.Count(pxworkspace.StatusWarn), rep.Count(pxworkspace.StatusFail), rep.Count(pxworkspace.StatusSkip))
	return write(cmd, b.String())
}
