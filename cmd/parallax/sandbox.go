package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/engine"
	"github.com/parallax/parallax/internal/tools/shell"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// newSandboxCmd groups what explains the per-command kernel sandbox.
func newSandboxCmd() *cobra.Command {
	var workspace string
	var asJSON bool
	var hosts, keep []string
	cmd := &cobra.Command{
		Use:   "sandbox [flags] -- PROGRAM [ARGS...]",
		Short: "Run any agent or program in the kernel sandbox the own agent's commands get; explain that sandbox",
		Long: `sandbox -- PROGRAM runs PROGRAM (Claude Code, Codex, Aider, a script) in the
sandbox each command of the own agent runs in, from a profile instead of a
verdict:
  - the workspace writable, except its host-trusted files (.git/config,
    .git/hooks, .claude/, .vscode/, .envrc, ...), which are read-only;
  - every workspace's .parallax and ~/.parallax hidden, secret files
    (keys, .env, .netrc, credentials) masked, the rest of the home read-only;
  - a private /tmp; its own PID, network, IPC and UTS namespaces: nothing it
    starts outlives it;
  - the network only through the egress proxy: the workspace's registries
    (agent.command.registries) and the hosts given with --allow-host, each
    connection audited; a loopback IP:port given there is relayed (a local
    model server);
  - resources bounded (agent.command.limits);
  - an environment of the usual toolchain variables only; --env NAME passes
    more (an API key the program needs).
What the program and everything it runs (a Makefile, a test, an inline
interpreter) can touch is what the kernel lets it, whatever the gate saw.
The start and end are audited; the exit status is the program's.`,
		Example: `  parallax sandbox --allow-host api.anthropic.com --env ANTHROPIC_API_KEY -- claude
  parallax sandbox -- make test
  parallax sandbox explain 'go test ./...'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return fmt.Errorf("name the program after --: parallax sandbox [flags] -- PROGRAM [ARGS...]")
			}
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
			for _, name := range keep {
				if name == "" || strings.ContainsAny(name, "= ") {
					return fmt.Errorf("--env %q: give the name of a variable", name)
				}
			}
			env, _ := shell.Scrub{Allowlist: true, Keep: keep}.Apply(os.Environ())
			code, notes, err := engine.RunSandboxed(cmd.Context(), engine.SandboxRun{Root: root, Home: home,
				Settings: cfg.AgentSettings(), Hosts: hosts, Argv: args, Env: env,
				Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
			for _, n := range notes {
				fmt.Fprintln(cmd.ErrOrStderr(), "parallax sandbox:", n)
			}
			if err != nil {
				return err
			}
			if code != 0 {
				return &exitError{code: code, err: fmt.Errorf("%s exited with status %d", args[0], code)}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&hosts, "allow-host", nil, "a host the program may reach through the proxy (host, host:port, *.suffix, or a loopback IP:port to relay); repeatable")
	cmd.Flags().StringArrayVar(&keep, "env", nil, "pass this environment variable through as it is (an API key); repeatable")
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
