package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// presetChoices are the presets the init prompt offers, in order, with a
// one-line description each.
var presetChoices = []struct{ name, desc string }{
	{"default", "routine work allowed; credentials and persistence blocked; writes outside the workspace, pushes and outbound messages escalate"},
	{"permissive", "only critical secrets blocked; shell commands, HTTP and messages go to the heuristics; the rest allowed"},
	{"strict", "only reads allowed; writes, commands and outbound messages need the judge; deletions and pushes denied"},
}

func newInitCmd() *cobra.Command { return initCommand(stdinIsTerminal) }

// stdinIsTerminal reports whether in is a terminal (then init asks).
func stdinIsTerminal(in io.Reader) bool {
	f, isFile := in.(*os.File)
	return isFile && term.IsTerminal(int(f.Fd())) //nolint:gosec // a file descriptor fits in an int
}

// initCommand builds `parallax init`; interactive decides whether stdin
// is a terminal to ask on.
func initCommand(interactive func(io.Reader) bool) *cobra.Command {
	var preset string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a workspace: .parallax/ with config, policy, tokens, audit chain and database",
		Long: `Init makes DIR (default: the current directory; created if missing) a
Parallax workspace. It creates DIR/.parallax (mode 0700) holding:

  config.yaml    version and the base policy preset (--policy)
  policy.yaml    your rules, layered over the preset (none yet; see parallax policy add)
  canary.token   a random canary (32 bytes, hex, 0600)
  api.token      the bearer token of the HTTP API (32 bytes, hex, 0600)
  .gitignore     keeps all but config.yaml and policy.yaml out of git
  audit.jsonl    the audit chain; its first entry records the initialisation
  parallax.db    sessions, taint, IFC labels, the Chronicle index
  chronicle/     snapshot contents
  backups/       earlier workspaces moved aside by --force

Everything is built in a staging directory inside DIR and renamed into place
in one step: an error or a crash never leaves a half workspace.

An existing .parallax is never overwritten. With --force it is moved, whole
and unchanged, into the new workspace as .parallax/backups/parallax-<UTC
time>/ (its audit chain, database and snapshots included; nothing is
deleted), and the new chain's first entry names it and the anchor the old
chain ended with. Stop agents using the workspace first.

Without --policy, init asks for a preset when stdin is a terminal and uses
default otherwise. Check the result with parallax doctor.`,
		Example: `  parallax init
  parallax init ~/project --policy strict
  parallax init ~/project --force          # keep the old state in .parallax/backups/`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			root, err := dirOrCwd(dir) // init makes a workspace here, never above
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("policy") && interactive(cmd.InOrStdin()) {
				if preset, err = promptPolicy(cmd.InOrStdin(), cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			home, _ := os.UserHomeDir() // "" leaves the list of workspaces alone; the engine registers it
			res, err := pxworkspace.Init(cmd.Context(), root, pxworkspace.InitOptions{Policy: preset, Force: force, Home: home})
			if errors.Is(err, pxworkspace.ErrExists) {
				return &exitError{code: 1, err: fmt.Errorf("init: %s already holds a workspace; parallax doctor checks it, "+
					"--force replaces it (the old one is kept in .parallax/backups/)", root)}
			}
			if err != nil {
				return err
			}
			return write(cmd, initSummary(res))
		},
	}
	cmd.Flags().StringVar(&preset, "policy", "default", "base policy preset: default, permissive or strict")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing workspace, moving the old .parallax into the new one's backups/ (never deleted)")
	return cmd
}

// initSummary says what init created; it names files, never token values.
func initSummary(res pxworkspace.InitResult) string {
	var b strings.Builder
	rel := func(p string) string {
		if r, err := filepath.Rel(res.Root, p); err == nil {
			return r
		}
		return p
	}
	fmt.Fprintf(&b, "initialised %s (policy preset %s)\n", res.Root, res.Policy)
	fmt.Fprintf(&b, "  %-26s base policy\n", rel(pxworkspace.ConfigPath(res.Root)))
	fmt.Fprintf(&b, "  %-26s your rules (parallax policy add)\n", rel(pxworkspace.PolicyPath(res.Root)))
	fmt.Fprintf(&b, "  %-26s random canary, mode 0600\n", rel(pxworkspace.CanaryPath(res.Root)))
	fmt.Fprintf(&b, "  %-26s HTTP API bearer token, mode 0600\n", rel(pxworkspace.APITokenPath(res.Root)))
	fmt.Fprintf(&b, "  %-26s audit chain, anchor %d:%s\n", ".parallax/audit.jsonl", res.Entry.Seq, res.Entry.Hash)
	fmt.Fprintf(&b, "  %-26s sessions, taint, Chronicle index\n", rel(pxworkspace.DBPath(res.Root)))
	if res.Backup != "" {
		fmt.Fprintf(&b, "the previous workspace was moved, unchanged, to %s\n", rel(res.Backup))
	}
	if res.Unregistered != "" {
		fmt.Fprintf(&b, "warning: not added to the list of workspaces whose state commands cannot see (%s); "+
			"the engine adds it when it starts\n", res.Unregistered)
	}
	fmt.Fprintf(&b, "next: parallax doctor --workspace %s\n", res.Root)
	return b.String()
}

// promptPolicy asks for a preset on out and reads the answer from in: a
// number, a name, or an empty line for default. It asks again (at most
// three times) after an answer it does not know.
func promptPolicy(in io.Reader, out io.Writer) (string, error) {
	br := bufio.NewReader(in)
	var b strings.Builder
	b.WriteString("Policy preset for this workspace:\n")
	for i, c := range presetChoices {
		fmt.Fprintf(&b, "  %d) %-11s %s\n", i+1, c.name, c.desc)
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return "", fmt.Errorf("init: write prompt: %w", err)
	}
	for range 3 {
		if _, err := io.WriteString(out, "Choose 1-3 or a name [default]: "); err != nil {
			return "", fmt.Errorf("init: write prompt: %w", err)
		}
		line, err := br.ReadString('\n')
		if err != nil && (!errors.Is(err, io.EOF) || line == "") {
			return "", fmt.Errorf("init: no preset chosen: %w", err)
		}
		if name, known := presetAnswer(strings.TrimSpace(line)); known {
			return name, nil
		}
		if _, err := fmt.Fprintf(out, "%q is not a preset.\n", strings.TrimSpace(line)); err != nil {
			return "", fmt.Errorf("init: write prompt: %w", err)
		}
	}
	return "", errors.New("init: no preset chosen after three answers (use --policy default|permissive|strict)")
}

// presetAnswer maps an answer to a preset name.
func presetAnswer(s string) (string, bool) {
	if s == "" {
		return "default", true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(presetChoices) {
		return presetChoices[n-1].name, true
	}
	for _, c := range presetChoices {
		if strings.EqualFold(s, c.name) {
			return c.name, true
		}
	}
	return "", false
}
