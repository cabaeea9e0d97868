package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/mcpproxy"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// mcpPinsPath is where a workspace keeps its MCP tool pins.
func mcpPinsPath(root string) string {
	return filepath.Join(pxworkspace.StateDir(root), "mcp", "pins.json")
}

func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Put the gate between an MCP client and an MCP server",
	}
	cmd.AddCommand(newMCPProxyCmd(), newMCPPinsCmd(), newMCPTrustCmd())
	return cmd
}

// mcpProxyFlags are the flags of `parallax mcp proxy`.
type mcpProxyFlags struct {
	workspace, home, policy, session, name, approval string
	noWorkspace                                      bool
	timeout                                          time.Duration
	trust, roots                                     []string
}

func newMCPProxyCmd() *cobra.Command {
	var f mcpProxyFlags
	cmd := &cobra.Command{
		Use:   "proxy [flags] -- SERVER_COMMAND [ARG...]",
		Short: "Run an MCP server behind the gate (stdio)",
		Long: `Starts SERVER_COMMAND as an MCP server over stdio (when the client
initializes) and serves its tools, resources, prompts, completion and logging
on this process's stdin/stdout; the server is offered sampling only when the
client offers it, never roots or elicitation. Every tools/call is mapped to an action (a
command argument is a shell command, a path a file, a url a request;
anything else an mcp_call) and judged by the gate: BLOCK returns a tool error
with the reason; ESCALATE is approved when the tool is named by --trust-tool,
else asked on the terminal (/dev/tty, through the approval broker: grants,
hourly cap, denied after the timeout), else blocked ("needs approval; no
approval channel"). Before a write, edit, move or delete is forwarded,
Chronicle snapshots its targets inside the workspace (parallax chronicle
rollback undoes it); a snapshot that fails refuses the call. Results pass DLP
(redacted or withheld) and taint the session; results that read as orders to
the agent are flagged. Resource contents, prompts, log messages and sampling
requests are screened the same way. When the client goes away or this process
gets SIGTERM/SIGINT/SIGHUP, the server's whole process group is ended within 2 s.

Relative path arguments are resolved the way the server resolves them:
against the allowed directories of server-filesystem (its arguments), or
against --root DIR. When the base is unknown (no root, or several and a
server whose rule Parallax does not know) the call is blocked. ~ is the
server's HOME. --root only tells Parallax where the server puts relative
paths, it confines nothing; for server-filesystem it must name the
server's own directories, or the proxy does not start.

Tool definitions are pinned per server (SHA-256 of name, title, description,
input schema, annotations) in .parallax/mcp/pins.json on first sight. A
changed definition (rug pull), or one whose text reads as orders to the
agent (tool poisoning), is held until approved with
` + "`parallax mcp pins approve SERVER TOOL`" + `.

The workspace (--workspace, default: the one at or above the current
directory) must be initialised (parallax init): its policy, session taint
and audit chain are used. The whole audit chain is verified at start: on a
broken chain the proxy refuses to start (parallax doctor says what to do).
--no-workspace runs with the default policy, memory-only state, pins
that last for this process and no audit chain. One proxy process is one
session (--session, default a random mcp-<16 hex>). The server's stderr is
passed through; this command logs to stderr (stdout is the MCP transport).`,
		Example: `  # Claude Desktop / IDE configuration: command "parallax", args:
  parallax mcp proxy --workspace ~/project -- npx -y @modelcontextprotocol/server-filesystem ~/project`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			shield.LongRunning()
			return runMCPProxy(cmd, f, args)
		},
	}
	// Everything after the server command belongs to it.
	cmd.Flags().SetInterspersed(false)
	fl := cmd.Flags()
	fl.StringVar(&f.workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory); must be initialised")
	fl.BoolVar(&f.noWorkspace, "no-workspace", false, "run without a workspace: memory-only taint and pins, no audit chain")
	fl.StringVar(&f.home, "home", "", "what ~ means (default: $HOME)")
	fl.StringVar(&f.policy, "policy", "", "policy preset or file (default: the workspace's config)")
	fl.StringVar(&f.session, "session", "", "gate session id (default: random mcp-<16 hex>)")
	fl.StringVar(&f.name, "name", "", "server identity for pins and audit (default: program name + hash of the command line)")
	fl.StringVar(&f.approval, "approval", "tty", "approval channel for escalations: tty (the controlling terminal) or none (block)")
	fl.DurationVar(&f.timeout, "approval-timeout", 0, "how long a question waits before it is denied (default: the workspace's approval.timeout, else 300s)")
	fl.StringSliceVar(&f.trust, "trust-tool", nil, "approve escalations of this tool in advance (repeatable; never overrides a BLOCK)")
	fl.StringArrayVar(&f.roots, "root", nil, "directory the server resolves relative paths against (repeatable; "+
		"default: learned from the command line of servers Parallax knows, such as server-filesystem, "+
		"which it must then match); it does not confine the server")
	return cmd
}

// runMCPProxy wires the gate, pins, approver and transports and runs the
// proxy until the client or the server goes away.
func runMCPProxy(cmd *cobra.Command, f mcpProxyFlags, argv []string) (err error) {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg, ws, err := mcpProxyConfig(cmd, f)
	if err != nil {
		return err
	}
	if ws != nil {
		defer func() { err = errors.Join(err, ws.Close()) }()
	}
	cfg.ServerID = f.name
	if cfg.ServerID == "" {
		cfg.ServerID = mcpproxy.ServerID(argv)
	}
	cfg.Command = strings.Join(argv, " ")
	if cfg.ServerHome = os.Getenv("HOME"); cfg.ServerHome == "" {
		cfg.ServerHome = cfg.Home // the server inherits this environment
	}
	if cfg.Roots, err = mcpproxy.ServerRoots(argv, f.roots, cfg.Dir, cfg.ServerHome); err != nil {
		return err
	}
	if cfg.Session = f.session; cfg.Session == "" {
		if cfg.Session, err = mcpSessionID(); err != nil {
			return err
		}
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
	cfg.Logger = logger
	closeBroker, err := mcpApprover(&cfg, ws, f, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeBroker()) }()
	p, err := mcpproxy.New(cfg)
	if err != nil {
		return err
	}
	server := exec.Command(argv[0], argv[1:]...) //nolint:gosec // running the server the user names is the point
	server.Dir, server.Stderr = cfg.Dir, cmd.ErrOrStderr()
	logger.Info("mcp proxy: starting", "server", cfg.ServerID, "session", cfg.Session, "workspace", cfg.Workspace)
	down := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: mcpNopWriteCloser{cmd.OutOrStdout()}}
	// The server runs in a process group of its own: when the client goes
	// away (stdin EOF) or this process is told to stop, Run closes the
	// connection, which ends the whole group within 2 s (stdin closed,
	// then SIGTERM, then SIGKILL): no orphaned server, npx → node included.
	return p.Run(ctx, down, &mcpproxy.ProcessTransport{Command: server})
}

// mcpProxyConfig builds the gate for the proxy: the workspace's state when
// it is initialised, memory only with --no-workspace, otherwise an error.
// The gate gets no approver: the proxy asks, after --trust-tool.
func mcpProxyConfig(cmd *cobra.Command, f mcpProxyFlags) (mcpproxy.Config, *pxworkspace.Workspace, error) {
	gcfg, err := gateConfig(cmd.ErrOrStderr(), f.workspace, f.home, f.policy)
	if err != nil {
		return mcpproxy.Config{}, nil, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return mcpproxy.Config{}, nil, fmt.Errorf("find current directory: %w", err)
	}
	cfg := mcpproxy.Config{Workspace: gcfg.Workspace, Home: gcfg.Home, Dir: dir, TrustTools: f.trust}
	if f.noWorkspace {
		cfg.Pins = mcpproxy.NewMemoryPins()
		g, err := shield.New(gcfg)
		cfg.Gate = g
		return cfg, nil, err
	}
	if !pxworkspace.Initialised(gcfg.Workspace) {
		return cfg, nil, fmt.Errorf("workspace %s is not initialised: run `parallax init %s`, "+
			"or pass --no-workspace to run with memory-only state and no audit chain", gcfg.Workspace, gcfg.Workspace)
	}
	rep, err := pxworkspace.VerifyChain(gcfg.Workspace)
	if err != nil {
		return cfg, nil, fmt.Errorf("mcp proxy %s: %w", gcfg.Workspace, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "parallax mcp proxy: audit chain of %s %s\n", gcfg.Workspace, pxworkspace.ChainStatus(rep))
	ws, err := pxworkspace.Open(cmd.Context(), gcfg.Workspace)
	if err != nil {
		return cfg, nil, err
	}
	wcfg := ws.GateConfig(gcfg.Home)
	if f.policy != "" {
		wcfg.Policy = f.policy
	}
	wcfg.Approver = nil
	g, err := shield.New(wcfg)
	if err != nil {
		return cfg, nil, errors.Join(err, ws.Close())
	}
	cfg.Gate, cfg.Audit, cfg.Pins = g, ws.Audit, mcpproxy.FilePins{Path: mcpPinsPath(gcfg.Workspace)}
	cfg.Chronicle = ws // snapshots before writes, as the hook takes them
	return cfg, ws, nil
}

// mcpApprover sets the approval channel: the approval broker with the
// controlling terminal (stdin and stdout carry MCP), with the timeout,
// hourly cap and grant lifetime of the workspace's config. A missing
// terminal is not an error: escalations are then blocked, and the
// operator is told. Without a workspace there is no audit chain, and so
// no approvals. (A configured webhook is not used: its answers reach
// parallax serve, not this process.)
func mcpApprover(cfg *mcpproxy.Config, ws *pxworkspace.Workspace, f mcpProxyFlags, logger *slog.Logger) (func() error, error) {
	none := func() error { return nil }
	switch f.approval {
	case "none":
		cfg.NoApproval = " (--approval none)"
		return none, nil
	case "tty":
	default:
		return none, fmt.Errorf("--approval %q: want tty or none", f.approval)
	}
	if ws == nil {
		cfg.NoApproval = " (no workspace, so no audited approvals)"
		logger.Warn("mcp proxy: no workspace, so no audited approvals; escalations are blocked")
		return none, nil
	}
	// Detected up front: with no controlling terminal (a desktop client
	// launched us) opening /dev/tty fails at once (ENXIO), and every
	// escalation is a BLOCK that says how to approve, never a wait.
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		cfg.NoApproval = " (no terminal to ask on; a configured approval webhook answers parallax serve, not this proxy)"
		logger.Warn("mcp proxy: no terminal for approvals; escalations are blocked", "error", err)
		return none, nil
	}
	acfg := approval.Config{Recorder: ws.Audit, Timeout: f.timeout,
		Channels: []approval.Channel{approval.NewTerminal("terminal", tty, tty)}}
	if a := ws.Config.Approval; a != nil {
		acfg.HourlyLimit, acfg.GrantTTL = a.HourlyLimit, a.GrantTTL.Duration
		if acfg.Timeout == 0 {
			acfg.Timeout = a.Timeout.Duration
		}
	}
	b, err := approval.New(acfg)
	if err != nil {
		return none, errors.Join(fmt.Errorf("approval broker: %w", err), tty.Close())
	}
	cfg.Approver = b
	return func() error { return errors.Join(b.Close(), tty.Close()) }, nil
}

// mcpSessionID is a random session id.
func mcpSessionID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return "mcp-" + hex.EncodeToString(b[:]), nil
}

// mcpNopWriteCloser keeps the process's stdout open when the transport
// closes.
type mcpNopWriteCloser struct{ io.Writer }

func (mcpNopWriteCloser) Close() error { return nil }

func newMCPPinsCmd() *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pins",
		Short: "List the pinned MCP tool definitions and the ones held for approval",
		Long: `Lists, per server, every pinned tool (TOFU: pinned on first use; approved:
approved by a human) and every held definition (held:changed — it differs
from the pinned one; held:poisoned — its text reads as orders to the agent).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := mcpWorkspaceRoot(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			pf, err := mcpproxy.FilePins{Path: mcpPinsPath(root)}.Load(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				b, err := json.MarshalIndent(pf, "", "  ")
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), mcpPinsTable(pf))
			return err
		},
	}
	cmd.PersistentFlags().StringVar(&workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print pins.json")
	list := &cobra.Command{Use: "list", Short: "Same as `parallax mcp pins`", Args: cobra.NoArgs, RunE: cmd.RunE}
	list.Flags().BoolVar(&asJSON, "json", false, "print pins.json")
	cmd.AddCommand(list, newMCPApproveCmd(&workspace))
	return cmd
}

func newMCPApproveCmd(workspace *string) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "approve SERVER [TOOL...]",
		Short: "Trust the held definition of a tool (after reviewing it)",
		Long: `Pins the held definition of each TOOL of SERVER (the id shown by
` + "`parallax mcp pins`" + `, or the server's name when only one server has it);
--all approves every held tool of SERVER. A running proxy serves the tool
from its next call. Each approval is audited (ConfigChanged,
mcp_tool_approved).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 1) {
				return errors.New("name the tools to approve, or pass --all")
			}
			return runMCPApprove(cmd, *workspace, args[0], args[1:], all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "approve every held tool of SERVER")
	return cmd
}

func runMCPApprove(cmd *cobra.Command, workspace, server string, tools []string, all bool) (err error) {
	root, err := mcpWorkspaceRoot(cmd.ErrOrStderr(), workspace)
	if err != nil {
		return err
	}
	store := mcpproxy.FilePins{Path: mcpPinsPath(root)}
	pf, id, err := mcpLoadServer(cmd.Context(), store, server)
	if err != nil {
		return err
	}
	if all {
		for t := range pf.Servers[id].Pending {
			tools = append(tools, t)
		}
		sort.Strings(tools)
		if len(tools) == 0 {
			return fmt.Errorf("server %s has no held tools", id)
		}
	}
	ws, err := pxworkspace.Open(cmd.Context(), root)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, ws.Close()) }()
	for _, t := range tools {
		p, err := mcpproxy.Approve(cmd.Context(), store, id, t, time.Now())
		if err != nil {
			return err
		}
		e := audit.Event{Type: audit.ConfigChanged, Detail: audit.Detail{Code: "mcp_tool_approved", Ref: id,
			Message: fmt.Sprintf("tool %s on server %s approved (%s)", t, id, p.Reason), Labels: p.Rules}}
		if _, err := ws.Audit.Append(cmd.Context(), e); err != nil {
			return fmt.Errorf("audit the approval of %s: %w", t, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "approved %s on %s (%s, %s)\n", t, id, p.Reason, mcpShortHash(p.Hash))
	}
	return nil
}

// mcpWorkspaceRoot resolves an initialised workspace.
func mcpWorkspaceRoot(stderr io.Writer, dir string) (string, error) {
	root, err := resolveWorkspace(stderr, dir)
	if err != nil {
		return "", err
	}
	if !pxworkspace.Initialised(root) {
		return "", fmt.Errorf("workspace %s: %w", root, pxworkspace.ErrNotInitialised)
	}
	return root, nil
}

// mcpLoadServer loads the pins and finds server in them (mcpResolveServer).
func mcpLoadServer(ctx context.Context, store mcpproxy.FilePins, server string) (*mcpproxy.PinFile, string, error) {
	pf, err := store.Load(ctx)
	if err != nil {
		return nil, "", err
	}
	id, err := mcpResolveServer(pf, server)
	return pf, id, err
}

// mcpResolveServer finds a server by id, or by its name when unique.
func mcpResolveServer(pf *mcpproxy.PinFile, s string) (string, error) {
	if _, ok := pf.Servers[s]; ok {
		return s, nil
	}
	var match []string
	for _, id := range pf.SortedServers() {
		if pf.Servers[id].Name == s {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return "", fmt.Errorf("no server %q in the pins (known: %s)", s, strings.Join(pf.SortedServers(), ", "))
	}
	return "", fmt.Errorf("server name %q is ambiguous (%s): use the id", s, strings.Join(match, ", "))
}

// mcpPinsTable renders the pins, one line per tool.
func mcpPinsTable(pf *mcpproxy.PinFile) string {
	if len(pf.Servers) == 0 {
		return "no MCP servers pinned\n"
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOL\tSTATE\tHASH\tSINCE (UTC)\tDETAIL")
	for _, id := range pf.SortedServers() {
		sp := pf.Servers[id]
		names := map[string]bool{}
		for t := range sp.Tools {
			names[t] = true
		}
		for t := range sp.Pending {
			names[t] = true
		}
		sorted := make([]string, 0, len(names))
		for t := range names {
			sorted = append(sorted, t)
		}
		sort.Strings(sorted)
		for _, t := range sorted {
			if p, ok := sp.Pending[t]; ok {
				fmt.Fprintf(tw, "%s\t%s\theld:%s\t%s\t%s\t%s\n", id, t, p.Reason, mcpShortHash(p.Hash),
					p.SeenAt.UTC().Format(time.DateTime), mcpOneLine(strings.Join(p.Rules, ",")+" "+p.Description, 60))
				continue
			}
			pin := sp.Tools[t]
			state := "TOFU"
			if pin.Approved {
				state = "approved"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", id, t, state, mcpShortHash(pin.Hash),
				pin.PinnedAt.UTC().Format(time.DateTime), mcpOneLine(pin.Description, 60))
		}
	}
	_ = tw.Flush()
	return b.String()
}

func mcpShortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func mcpOneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newMCPTrustCmd() *cobra.Command {
	var workspace string
	var remove bool
	cmd := &cobra.Command{
		Use:   "trust [SERVER TOOL]",
		Short: "Let a tool's escalations through without asking (never its BLOCKs)",
		Long: `Records a standing approval of the escalations of TOOL on SERVER (the id
shown by ` + "`parallax mcp pins`" + `, or the server's name when unique), for its
pinned definition: once the definition changes, the trust is void. Like
--trust-tool it lifts escalations only; the guard, the denylist, protected
files and information-flow rules still block. --remove withdraws it; with
no arguments the trusted tools are listed. Each change is audited
(ConfigChanged, mcp_tool_trusted / mcp_tool_untrusted).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 && len(args) != 2 {
				return errors.New("want SERVER TOOL, or nothing to list")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := mcpWorkspaceRoot(cmd.ErrOrStderr(), workspace)
			if err != nil {
				return err
			}
			store := mcpproxy.FilePins{Path: mcpPinsPath(root)}
			if len(args) == 0 {
				if remove {
					return errors.New("--remove needs SERVER TOOL")
				}
				pf, err := store.Load(cmd.Context())
				if err != nil {
					return err
				}
				_, err = io.WriteString(cmd.OutOrStdout(), mcpTrustTable(pf))
				return err
			}
			return runMCPTrust(cmd, root, store, args[0], args[1], remove)
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory)")
	cmd.Flags().BoolVar(&remove, "remove", false, "withdraw the trust")
	return cmd
}

func runMCPTrust(cmd *cobra.Command, root string, store mcpproxy.FilePins, server, tool string, remove bool) (err error) {
	_, id, err := mcpLoadServer(cmd.Context(), store, server)
	if err != nil {
		return err
	}
	ws, err := pxworkspace.Open(cmd.Context(), root)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, ws.Close()) }()
	var e audit.Event
	if remove {
		ok, err := mcpproxy.Untrust(cmd.Context(), store, id, tool)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("tool %s on server %s is not trusted", tool, id)
		}
		e = audit.Event{Type: audit.ConfigChanged, Detail: audit.Detail{Code: "mcp_tool_untrusted", Ref: id,
			Message: fmt.Sprintf("tool %s on server %s no longer trusted", tool, id)}}
		fmt.Fprintf(cmd.OutOrStdout(), "%s on %s is no longer trusted\n", tool, id)
	} else {
		tr, err := mcpproxy.Trust(cmd.Context(), store, id, tool, time.Now())
		if err != nil {
			return err
		}
		e = audit.Event{Type: audit.ConfigChanged, Detail: audit.Detail{Code: "mcp_tool_trusted", Ref: id,
			Message: fmt.Sprintf("tool %s on server %s trusted for definition %s (escalations only)", tool, id, tr.Hash)}}
		fmt.Fprintf(cmd.OutOrStdout(), "trusted %s on %s (%s): its escalations pass without asking; BLOCKs still block\n",
			tool, id, mcpShortHash(tr.Hash))
	}
	if _, err := ws.Audit.Append(cmd.Context(), e); err != nil {
		return fmt.Errorf("audit the trust of %s: %w", tool, err)
	}
	return nil
}

// mcpTrustTable lists the trusted tools, one line each; a trust whose
// definition changed since is shown void.
func mcpTrustTable(pf *mcpproxy.PinFile) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	n := 0
	for _, id := range pf.SortedServers() {
		sp := pf.Servers[id]
		tools := make([]string, 0, len(sp.Trusted))
		for t := range sp.Trusted {
			tools = append(tools, t)
		}
		sort.Strings(tools)
		for _, t := range tools {
			if n == 0 {
				fmt.Fprintln(tw, "SERVER\tTOOL\tSTATE\tHASH\tSINCE (UTC)")
			}
			n++
			tr := sp.Trusted[t]
			state := "trusted"
			if pin, ok := sp.Tools[t]; !ok || pin.Hash != tr.Hash {
				state = "void (definition changed)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", id, t, state, mcpShortHash(tr.Hash), tr.TrustedAt.UTC().Format(time.DateTime))
		}
	}
	if n == 0 {
		return "no trusted MCP tools\n"
	}
	_ = tw.Flush()
	return b.String()
}
