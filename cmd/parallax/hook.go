package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/gateway/hookd"
)

// hookTimeout bounds one hook call; past it the call is denied. Claude
// Code's own limit for a hook command is 60 s.
const hookTimeout = 30 * time.Second

// exitHookBlocked is Claude Code's blocking exit status: a PreToolUse
// call is refused and stderr is shown to Claude.
const exitHookBlocked = 2

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Put the gate in front of agents you already use (Claude Code)",
	}
	cmd.AddCommand(newHookClaudeCodeCmd())
	return cmd
}

func newHookClaudeCodeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "claude-code",
		Short: "Claude Code PreToolUse/PostToolUse hook (reads the hook JSON on stdin)",
		Long: `Run by Claude Code before and after every tool call; install it with
"parallax hook claude-code install". It reads the hook JSON on stdin, finds
the Parallax workspace at or above $CLAUDE_PROJECT_DIR or the call's cwd,
and maps the tool to an action for the gate.

PreToolUse: BLOCK prints a "deny" decision with the reason (Claude reads
it), ESCALATE prints "ask" (Claude Code's own prompt decides), ALLOW prints
nothing, so Claude Code's own permission rules still apply. Before a call
that may run changes files, Chronicle snapshots them (parallax chronicle
rollback undoes the call); if it cannot, the call is denied.

PostToolUse: tool_response is classified (DLP) and taints the session
(session_id) in the workspace database, so later calls of the same session
are judged with what it has seen.

Any error denies the call. Input that cannot be read exits with status 2,
which Claude Code treats as a refusal.

A warm daemon per workspace ("parallax hook claude-code daemon", started
by the first call, gone after 10 idle minutes) answers calls with the same
code; when it is missing, of another binary or in any doubt, the call is
decided in this process. PARALLAX_HOOK_DAEMON=off always decides in
process and starts no daemon.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHook(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.AddCommand(newHookInstallCmd(true), newHookInstallCmd(false), newHookDaemonCmd())
	return cmd
}

// isHookCall reports whether args are exactly "hook claude-code": main
// then answers without building the whole command tree.
func isHookCall(args []string) bool {
	return len(args) == 2 && args[0] == "hook" && args[1] == "claude-code"
}

// runHook answers one hook call, through the workspace's daemon when one
// answers, else in process.
func runHook(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	opts := hookd.Options{Home: os.Getenv("HOME"), ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR")}
	if os.Getenv(hookDaemonEnv) != "off" {
		if id, err := hookd.SelfIdentity(); err == nil {
			opts.Daemon, opts.Identity, opts.Start = true, id, startHookDaemon
		}
	}
	if err := hookd.Run(ctx, opts, stdin, stdout); err != nil {
		return &exitError{code: exitHookBlocked, err: err}
	}
	return nil
}

// hookDaemonEnv set to "off" keeps the hook from using or starting a daemon.
const hookDaemonEnv = "PARALLAX_HOOK_DAEMON"

func newHookDaemonCmd() *cobra.Command {
	var dir string
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Serve the workspace's hook calls from a warm process (started by the hook itself)",
		Long: `Serve the hook calls of one workspace over a Unix socket, so that a hook
process only forwards its input and prints the answer. The hook starts it
on its own (detached) when none answers; there is no need to run it by
hand. Each call is decided by the same code as in a hook process, with the
workspace opened afresh; the socket is in .parallax/ (or a 0700 per-user
directory when that path is too long), only the same user may connect, one
daemon serves a workspace, and it exits after --idle without calls, on
SIGTERM (finishing the calls in flight), or when a hook of another
parallax binary calls it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHookDaemon(cmd.Context(), dir, idle)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "the workspace (default: the one at or above the current directory)")
	cmd.Flags().DurationVar(&idle, "idle", hookd.DefaultIdle, "exit after this long without a call")
	return cmd
}

func runHookDaemon(ctx context.Context, dir string, idle time.Duration) error {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := claudecode.FindWorkspace(abs)
	if err != nil {
		return err
	}
	sock, err := hookd.SocketPath(root)
	if err != nil {
		return err
	}
	id, err := hookd.SelfIdentity()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &hookd.Server{Socket: sock, Identity: id, Idle: idle, LockWait: 2 * time.Second}
	if err := srv.Serve(ctx); err != nil && !errors.Is(err, hookd.ErrRunning) {
		return err
	}
	return nil
}

// hookFlags are the flags of install and uninstall.
type hookFlags struct {
	project, user    bool
	settings, binary string
}

func newHookInstallCmd(install bool) *cobra.Command {
	var f hookFlags
	use, short := "install", "Register the hook in Claude Code's settings (PreToolUse and PostToolUse)"
	if !install {
		use, short = "uninstall", "Remove exactly the hook entries install added"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

--project (the default) edits .claude/settings.json in the current
directory; --user edits ~/.claude/settings.json; --settings FILE edits FILE.
The hook command is the absolute path of this binary (or --binary) followed
by "hook claude-code"; entries are identified by that exact string, so
install is idempotent and uninstall removes only them. The rest of the file
is kept (keys in their order, values as they were; whitespace is rewritten
with two-space indentation), and the file is replaced atomically with its
mode kept.`,
		Example: `  parallax hook claude-code install            # this project
  parallax hook claude-code install --user     # every project of this user
  parallax hook claude-code uninstall --project`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHookInstall(cmd, f, install)
		},
	}
	cmd.Flags().BoolVar(&f.project, "project", false, "edit .claude/settings.json in the current directory (default)")
	cmd.Flags().BoolVar(&f.user, "user", false, "edit ~/.claude/settings.json")
	cmd.Flags().StringVar(&f.settings, "settings", "", "edit this settings file instead")
	cmd.Flags().StringVar(&f.binary, "binary", "", "path of the parallax binary the hook runs (default: this one)")
	return cmd
}

func runHookInstall(cmd *cobra.Command, f hookFlags, install bool) error {
	path, err := hookSettingsPath(f)
	if err != nil {
		return err
	}
	bin, err := hookBinary(f.binary)
	if err != nil {
		return err
	}
	command := claudecode.HookCommand(bin)
	op := claudecode.Uninstall
	if install {
		op = claudecode.Install
	}
	changed, err := op(path, command)
	if err != nil {
		return err
	}
	switch {
	case install && changed:
		err = write(cmd, fmt.Sprintf("installed the Parallax hook in %s (PreToolUse, PostToolUse):\n  %s\n", path, command))
	case install:
		err = write(cmd, fmt.Sprintf("the Parallax hook is already installed in %s\n", path))
	case changed:
		err = write(cmd, fmt.Sprintf("removed the Parallax hook (%s) from %s\n", command, path))
	default:
		err = write(cmd, fmt.Sprintf("no Parallax hook with command %s in %s\n", command, path))
	}
	if err == nil && install {
		err = noteWorkspace(cmd)
	}
	return err
}

// noteWorkspace warns when the current directory has no workspace: the
// hook then refuses every call.
func noteWorkspace(cmd *cobra.Command) error {
	wd, err := os.Getwd()
	if err != nil {
		return nil //nolint:nilerr // only a hint
	}
	if _, err := claudecode.FindWorkspace(wd); err != nil {
		return write(cmd, "note: no Parallax workspace at or above "+wd+
			": run `parallax init` in the project; until then the hook refuses every tool call there\n")
	}
	return nil
}

func hookSettingsPath(f hookFlags) (string, error) {
	n := 0
	for _, b := range []bool{f.project, f.user, f.settings != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("choose one of --project, --user and --settings")
	}
	switch {
	case f.settings != "":
		return filepath.Abs(f.settings)
	case f.user:
		home := os.Getenv("HOME")
		if !filepath.IsAbs(home) {
			return "", errors.New("HOME is not set to an absolute path: --user edits ~/.claude/settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find current directory: %w", err)
	}
	return filepath.Join(wd, ".claude", "settings.json"), nil
}

// hookBinary is the absolute, symlink-free path of the binary the hook
// runs. A go run build (deleted when it exits) is refused.
func hookBinary(flag string) (string, error) {
	bin := flag
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find this binary: %w; pass --binary", err)
		}
		bin = exe
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", bin, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	} else if flag == "" {
		return "", fmt.Errorf("binary %s: %w", abs, err)
	}
	if strings.Contains(abs, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("binary %s is a temporary go run build; build parallax (go build -o bin/parallax ./cmd/parallax) and run install from it, or pass --binary", abs)
	}
	return abs, nil
}
