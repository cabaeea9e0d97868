package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/engine"
	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/gateway/hookd"
	"github.com/parallax/parallax/internal/gateway/hookrelay"
	"github.com/parallax/parallax/internal/tools/shell"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
)

// newSandboxCmd groups what explains the per-command kernel sandbox.
func newSandboxCmd() *cobra.Command {
	var workspace string
	var asJSON bool
	var hosts, keep []string
	var profile string
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
			root, home, cfg, err := sandboxContext(cmd, workspace)
			if err != nil {
				return err
			}
			for _, name := range keep {
				if name == "" || strings.ContainsAny(name, "= ") {
					return fmt.Errorf("--env %q: give the name of a variable", name)
				}
			}
			run := engine.SandboxRun{Root: root, Home: home, Settings: cfg.AgentSettings(), Hosts: hosts, Argv: args,
				Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), Hook: relayDecider(home, root)}
			var set []string // variables the profile sets
			switch profile {
			case "":
			case "claude":
				if set, err = claudeProfile(&run, &keep); err != nil {
					return err
				}
			default:
				return fmt.Errorf("--profile %q: the profiles are: claude", profile)
			}
			run.Env, _ = shell.Scrub{Allowlist: true, Keep: keep}.Apply(os.Environ())
			run.Env = append(run.Env, set...)
			code, notes, err := engine.RunSandboxed(cmd.Context(), run)
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
	cmd.Flags().StringVar(&profile, "profile", "", "what the program needs beside the workspace: claude (Claude Code: ~/.claude writable but its settings, hooks, skills, agents, commands and memory; its API host and key)")
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
			root, home, cfg, err := sandboxContext(cmd, workspace)
			if err != nil {
				return err
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

// relayDecider decides the hook calls Claude Code makes inside the
// sandbox, here outside it, in process, for this workspace only: the
// call names neither another workspace nor another home.
func relayDecider(home, root string) hookrelay.Decide {
	return func(ctx context.Context, stdin []byte) hookrelay.Answer {
		var out bytes.Buffer
		err := hookd.Run(ctx, hookd.Options{Home: home, ProjectDir: root}, bytes.NewReader(stdin), &out)
		if err != nil {
			return hookrelay.Answer{Stdout: out.Bytes(), Code: exitHookBlocked, Message: err.Error()}
		}
		return hookrelay.Answer{Stdout: out.Bytes()}
	}
}

// claudeHostTrusted are the parts of ~/.claude that configure Claude
// Code itself (what runs on every call, what it loads as instructions):
// read-only inside the sandbox, where the rest of ~/.claude (sessions,
// todos, its own state) is writable.
var claudeHostTrusted = []string{"settings.json", "settings.local.json", "hooks", "skills", "agents", "commands",
	"CLAUDE.md", "rules", "plugins", "output-styles"}

// claudeProfile is what Claude Code needs in the sandbox: ~/.claude
// writable (made if missing) but its host-trusted parts, its state file
// kept there (CLAUDE_CONFIG_DIR), its API key and base URL passed
// through, and its API host (or the base URL's) allowed. It returns the
// variables it sets.
func claudeProfile(run *engine.SandboxRun, keep *[]string) ([]string, error) {
	dir := filepath.Join(run.Home, ".claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the claude profile: %w", err)
	}
	run.Writable = append(run.Writable, dir)
	for _, name := range claudeHostTrusted {
		run.ReadOnly = append(run.ReadOnly, filepath.Join(dir, name))
	}
	*keep = append(*keep, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "CLAUDE_CODE_USE_BEDROCK", "DISABLE_AUTOUPDATER")
	host := "api.anthropic.com"
	if base := os.Getenv("ANTHROPIC_BASE_URL"); base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("the claude profile: ANTHROPIC_BASE_URL %q is not a URL", base)
		}
		host = u.Host
		if u.Port() == "" {
			host = u.Hostname()
		}
	}
	run.Hosts = append(run.Hosts, host)
	if err := hookReachable(run.Root, run.Home, run.Stderr); err != nil {
		return nil, err
	}
	return []string{"CLAUDE_CONFIG_DIR=" + dir}, nil
}

// hookReachable checks that Claude Code will find the Parallax hook
// inside the sandbox: a hook whose binary lies in a directory the
// sandbox makes private or hides (/tmp, /var/tmp, /dev/shm, /run, any
// .parallax) would fail to start there, and Claude Code runs a tool
// whose hook failed to start as if there were none. No hook at all is
// said, not refused: the kernel still holds.
func hookReachable(root, home string, warn io.Writer) error {
	var bins []string
	for _, p := range []string{filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"),
		filepath.Join(home, ".claude", "settings.json")} {
		b, err := claudecode.HookBinaries(p)
		if err != nil {
			return fmt.Errorf("the claude profile: %w", err)
		}
		bins = append(bins, b...)
	}
	if len(bins) == 0 {
		fmt.Fprintln(warn, "parallax sandbox: no Parallax hook is installed for this workspace (parallax hook claude-code install); only the sandbox will hold Claude Code's calls")
		return nil
	}
	realOf := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	for _, bin := range bins {
		real := realOf(bin)
		if strings.Contains(real, "/.parallax/") {
			return fmt.Errorf("the Parallax hook's binary %s is in a .parallax directory, which the sandbox hides", bin)
		}
		if under(real, realOf(home)) || under(real, realOf(root)) {
			continue // the home and the workspace are seen inside where they are, even under /tmp
		}
		for _, private := range []string{"/tmp", "/var/tmp", "/dev/shm", "/run"} {
			if under(real, private) {
				return fmt.Errorf("the Parallax hook's binary %s is under %s, which the sandbox makes its own: Claude Code "+
					"would not find it and would run its tools without the hook; install it from a binary elsewhere "+
					"(parallax hook claude-code install --binary PATH)", bin, private)
			}
		}
	}
	return nil
}

// sandboxContext is what both sandbox commands start from: the
// workspace, its configuration and the user's home.
func sandboxContext(cmd *cobra.Command, workspace string) (root, home string, cfg pxworkspace.Config, err error) {
	if root, err = resolveWorkspace(cmd.ErrOrStderr(), workspace); err != nil {
		return "", "", cfg, err
	}
	if cfg, err = pxworkspace.LoadConfig(root); err != nil {
		return "", "", cfg, err
	}
	if home, err = os.UserHomeDir(); err != nil {
		return "", "", cfg, fmt.Errorf("the home directory: %w", err)
	}
	return root, home, cfg, nil
}
