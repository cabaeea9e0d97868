package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/flock"
	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/gateway/hookd"
	"github.com/parallax/parallax/internal/gateway/hookrelay"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
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
		Short: "Claude Code hook: the tool events, SessionStart, InstructionsLoaded, prompts (reads the hook JSON on stdin)",
		Long: `Run by Claude Code before and after every tool call; install it with
"parallax hook claude-code install". It reads the hook JSON on stdin, finds
the Parallax workspace at or above $CLAUDE_PROJECT_DIR or the call's cwd,
and maps the tool to an action for the gate (Claude Code 2.1 tools: Agent,
Task*, Cron*, Monitor, Workflow, SendMessage, Skill, … and the older names).

PreToolUse: BLOCK prints a "deny" decision with the reason (Claude reads
it), ESCALATE prints "ask" (Claude Code's own prompt decides), ALLOW prints
nothing, so Claude Code's own permission rules still apply. Before a call
that may run changes files, Chronicle snapshots them (parallax chronicle
rollback undoes the call); if it cannot, the call is denied. A tool
Parallax does not know is always asked about, saying so.

PreSkillShellCommand: a shell line a skill runs itself is judged as the
Bash call it is; what the gate blocks, or would ask a human about (Claude
Code has no prompt for these lines), is refused with exit status 2.

PostToolUse and PostToolUseFailure: what the model is shown (tool_response;
for a failed tool, such as a command exiting non-zero, the error text) is
classified (DLP) and taints the session (session_id) in the workspace
database, so later calls of the same session are judged with what it has
seen. PostToolBatch is answered the same way, call by call, if registered.
The taint is written first to .parallax/taint.pending, into room reserved
ahead, so a full disk still takes it; if it can be written nowhere, the
hook answers {"continue": false} with the reason (Claude Code stops the
session) and every session of the workspace is refused until parallax
doctor's fix is applied.

SessionStart, InstructionsLoaded, DirectoryAdded, UserPromptSubmit and
UserPromptExpansion: what reaches the model without a tool call (the
memory files Claude Code loads, CLAUDE.md and its rules, with their
@imports; the prompt) is classified the same way and taints the session.
A Monitor's output never comes back after the call: the session is
tainted before it runs, to what the command may show.

Any error denies the call. Input that cannot be read, or an event this
hook does not answer (it is named), exits with status 2, which Claude Code
treats as a refusal.

A warm daemon per workspace ("parallax hook claude-code daemon", started
by the first call, gone after 10 idle minutes, or within seconds once the
workspace's .parallax, the parallax binary or the key is removed or
replaced) answers calls with the same code. It is believed only once it
has proved, on the connection, that it holds the install's key
(~/.parallax/hookd.key, made by install; the gate seals ~/.parallax from
the agent), and only for answers that carry the key's tag; when it is
missing, of another binary, fails the proof or is in any doubt, the call
is decided in this process, never allowed for it. Without a key no daemon
is used or started. PARALLAX_HOOK_DAEMON=off always decides in process and
starts no daemon.`,
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

// hookTimeoutEnv shortens hookTimeout (a Go duration; longer values are
// ignored).
const hookTimeoutEnv = "PARALLAX_HOOK_TIMEOUT"

// hookLockMargin is how long before the hook's deadline every lock wait
// gives up, leaving time to answer.
const hookLockMargin = 2 * time.Second

// runHook answers one hook call, through the workspace's daemon when one
// answers, else in process, within hookTimeout: every lock it waits for
// gives up before that (flock.SetDeadline), and a watchdog answers deny
// at the deadline whatever the decision is still waiting for (a lock
// another process holds, a slow disk), so the host never times the hook
// out and runs the tool unchecked.
func runHook(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	timeout := hookTimeout
	if d, err := time.ParseDuration(os.Getenv(hookTimeoutEnv)); err == nil && d > 0 && d < timeout {
		timeout = d
	}
	deadline := time.Now().Add(timeout)
	flock.SetDeadline(deadline.Add(-min(hookLockMargin, timeout/3)))
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	buf, rerr := io.ReadAll(io.LimitReader(stdin, claudecode.MaxInputBytes+1))
	if rerr != nil {
		return &exitError{code: exitHookBlocked, err: fmt.Errorf("read the hook input: %w; the tool call is refused to fail closed", rerr)}
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- decideHook(ctx, buf, &out) }()
	watchdog := time.NewTimer(time.Until(deadline))
	defer watchdog.Stop()
	select {
	case err := <-done:
		if _, werr := stdout.Write(out.Bytes()); werr != nil && err == nil {
			err = &exitError{code: exitHookBlocked, err: fmt.Errorf("write the decision: %w; the tool call is refused to fail closed", werr)}
		}
		return err
	case <-watchdog.C:
		why := fmt.Sprintf("Parallax could not decide within %v (a lock another process holds, or a slow disk)", timeout)
		if action.TopLevelString(buf, "hook_event_name") == "PreToolUse" {
			return &exitError{code: exitHookBlocked, err: errors.New(why + "; the tool call is refused to fail closed")}
		}
		// After a call, what it returned may not be recorded: the
		// session stops rather than go on without its taint.
		msg := why + ". Parallax stopped this session: what the last tool returned may not be recorded, so no " +
			"further call can be judged with it. Run `parallax doctor` in the project."
		b, err := json.Marshal(claudecode.StopResponse{Continue: false, StopReason: msg, Decision: "block", Reason: msg})
		if err == nil {
			_, err = stdout.Write(append(b, '\n'))
		}
		if err != nil {
			return &exitError{code: exitHookBlocked, err: errors.New(msg)}
		}
		return nil
	}
}

// decideHook is the decision of one hook call. Inside `parallax sandbox`
// (hookrelay.EnvSocket set) it is made outside, by the process that
// holds the workspace's state; nothing is decided here, and a relay that
// does not answer, or that is not that process, refuses the call.
func decideHook(ctx context.Context, buf []byte, stdout io.Writer) error {
	if sock := os.Getenv(hookrelay.EnvSocket); sock != "" {
		a, err := hookrelay.Call(ctx, sock, buf)
		if err != nil {
			return &exitError{code: exitHookBlocked, err: fmt.Errorf("%w; the tool call is refused to fail closed", err)}
		}
		if _, err := stdout.Write(a.Stdout); err != nil {
			return &exitError{code: exitHookBlocked, err: fmt.Errorf("write the decision: %w; the tool call is refused to fail closed", err)}
		}
		if a.Code != 0 {
			return &exitError{code: a.Code, err: errors.New(a.Message)}
		}
		return nil
	}
	stdin := bytes.NewReader(buf)
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
	var idle, watch time.Duration
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Serve the workspace's hook calls from a warm process (started by the hook itself)",
		Long: `Serve the hook calls of one workspace over a Unix socket, so that a hook
process only forwards its input and prints the answer. The hook starts it
on its own (detached) when none answers; there is no need to run it by
hand. Each call is decided by the same code as in a hook process, with the
workspace opened afresh; the socket is in .parallax/ (or a 0700 per-user
directory when that path is too long), only the same user may connect, and
the daemon proves on every connection that it holds the install's key
(~/.parallax/hookd.key; it does not start without one) and decides only for
hooks that prove it too. One daemon serves a workspace, and it exits after
--idle without calls, on SIGTERM (finishing the calls in flight), when a
hook of another parallax binary calls it, or when what it serves is gone:
every --watch it checks that the workspace's .parallax, its socket, its own
binary and the key are still there and the same files (device and inode;
for the binary and the key also size and modification time), so a deleted
or re-initialised project, a removed or rebuilt binary, or a new key leaves
no daemon behind. It verifies the whole audit
chain when it starts and refuses to start on a broken one (the hooks then
decide in process; parallax doctor names the damage).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHookDaemon(cmd.Context(), dir, idle, watch)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "the workspace (default: the one at or above the current directory)")
	cmd.Flags().DurationVar(&idle, "idle", hookd.DefaultIdle, "exit after this long without a call")
	cmd.Flags().DurationVar(&watch, "watch", hookd.DefaultWatch,
		"check this often that the workspace's .parallax, the socket, this binary and the key are still the ones it started with")
	return cmd
}

func runHookDaemon(ctx context.Context, dir string, idle, watch time.Duration) error {
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
	if _, err := pxworkspace.VerifyChain(root); err != nil {
		// The hooks decide in process meanwhile; the marker holds back
		// the next daemon for a while (startHookDaemon).
		if errors.Is(err, pxworkspace.ErrChainBroken) {
			_ = os.WriteFile(hookDaemonRefusedPath(root), []byte("the audit chain does not verify: run parallax doctor\n"), 0o600)
		}
		return fmt.Errorf("hook daemon %s: %w", root, err)
	}
	_ = os.Remove(hookDaemonRefusedPath(root))
	sock, err := hookd.SocketPath(root)
	if err != nil {
		return err
	}
	id, err := hookd.SelfIdentity()
	if err != nil {
		return err
	}
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return fmt.Errorf("hook daemon %s: HOME %q is not absolute: no key", root, home)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &hookd.Server{Socket: sock, Identity: id, Idle: idle, LockWait: 2 * time.Second, Workspace: root,
		KeyFile: hookd.KeyPath(home), Watch: watch}
	if err := srv.Serve(ctx); err != nil && !errors.Is(err, hookd.ErrRunning) {
		return err
	}
	return nil
}

// hookDaemonBackoff is how long after a daemon refused a broken audit
// chain no other is started for the workspace.
const hookDaemonBackoff = time.Minute

// hookDaemonRefusedPath marks a workspace whose daemon refused to start.
func hookDaemonRefusedPath(root string) string {
	return filepath.Join(pxworkspace.StateDir(root), "hookd.refused")
}

// hookFlags are the flags of install and uninstall.
type hookFlags struct {
	project, user    bool
	settings, binary string
}

func newHookInstallCmd(install bool) *cobra.Command {
	var f hookFlags
	use, short := "install", "Register the hook in Claude Code's settings ("+strings.Join(claudecode.Events(), ", ")+")"
	long := short + `.

--project (the default) edits .claude/settings.json in the current
directory; --user edits ~/.claude/settings.json; --settings FILE edits FILE.
The hook command is the absolute, symlink-free path of this binary (or of
--binary, which must run: its "hook claude-code --help" is run first and
must answer as Parallax) followed by "hook claude-code". Install also makes
the install's key for the hook daemon (~/.parallax/hookd.key, 32 random
bytes, mode 0600) when there is none that loads; without it every call is
decided in the hook's own process. Any other Parallax
entry (another binary, another event) is replaced, so installing again
with a new binary leaves exactly one. The rest of the file is kept (keys
in their order, values as they were; whitespace is rewritten with
two-space indentation), and the file is replaced atomically with its mode
kept.

The settings file is recorded in the Parallax workspace at or above the
current directory (.parallax/protected-paths, audited as ConfigChanged
protected_path_added): its gate then blocks the
agent's writes and deletes of that file, as it does for the well-known
settings files (.claude/settings.json, .claude/settings.local.json,
~/.claude/settings.json, ~/.claude.json, MCP client configurations) and
for parallax commands run by the agent, so the agent cannot uninstall
the hook that guards it.`
	if !install {
		use, short = "uninstall", "Remove every Parallax hook entry from Claude Code's settings"
		long = short + `.

Every hook whose command is "<binary> hook claude-code", whatever the
binary, is removed from every event; matcher groups, event lists and the
"hooks" object left empty by that are removed too. Nothing else changes.
--project (the default), --user and --settings FILE choose the file as
for install. Once no Parallax entry is left in the file, it is taken out
of the protected paths of the workspace at or above the current directory
(audited as ConfigChanged protected_path_removed); the well-known settings
files stay protected by the gate's own tables. The agent the hook guards
cannot run this: the gate blocks parallax commands and writes to the
settings files.`
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Example: `  parallax hook claude-code install            # this project
  parallax hook claude-code install --user     # every project of this user
  parallax hook claude-code install --binary /usr/local/bin/parallax
  parallax hook claude-code uninstall --project`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHookInstall(cmd, f, install)
		},
	}
	cmd.Flags().BoolVar(&f.project, "project", false, "edit .claude/settings.json in the current directory (default)")
	cmd.Flags().BoolVar(&f.user, "user", false, "edit ~/.claude/settings.json")
	cmd.Flags().StringVar(&f.settings, "settings", "", "edit this settings file instead")
	if install {
		cmd.Flags().StringVar(&f.binary, "binary", "", "path of the parallax binary the hook runs (default: this one)")
	}
	return cmd
}

func runHookInstall(cmd *cobra.Command, f hookFlags, install bool) error {
	path, err := hookSettingsPath(f)
	if err != nil {
		return err
	}
	if !install {
		changed, err := claudecode.Uninstall(path)
		if err != nil {
			return err
		}
		msg := fmt.Sprintf("no Parallax hook entry in %s\n", path)
		if changed {
			msg = fmt.Sprintf("removed every Parallax hook entry from %s\n", path)
		}
		note, err := unprotectSettings(cmd.Context(), path)
		if err != nil {
			return errors.Join(write(cmd, msg), err)
		}
		return write(cmd, msg+note)
	}
	bin, err := hookBinary(cmd.Context(), f.binary)
	if err != nil {
		return err
	}
	// Protect the file before the hook is in it: the agent it guards must
	// not be able to take it out again.
	note, err := protectSettings(cmd.Context(), path)
	if err != nil {
		return err
	}
	command := claudecode.HookCommand(bin)
	changed, err := claudecode.Install(path, command)
	if err != nil {
		return err
	}
	if changed {
		err = write(cmd, fmt.Sprintf("installed the Parallax hook in %s (%s):\n  %s\n", path,
			strings.Join(claudecode.Events(), ", "), command))
	} else {
		err = write(cmd, fmt.Sprintf("the Parallax hook is already installed in %s\n", path))
	}
	if err == nil && note != "" {
		err = write(cmd, note)
	}
	if err == nil {
		err = write(cmd, hookKeyNote(os.Getenv("HOME")))
	}
	return err
}

// hookKeyNote makes sure the install's hook daemon key exists (created
// when missing or unusable) and says what happened: "" when the key was
// there. Without a key the hook still works, deciding every call in its
// own process, so a key that cannot be made is a note, not a failure.
func hookKeyNote(home string) string {
	created, err := hookd.CreateKey(home, rand.Reader)
	switch {
	case err != nil:
		return fmt.Sprintf("note: %v; without it the hook decides every call in its own process (no warm daemon)\n", err)
	case created:
		return fmt.Sprintf("created the hook daemon's key %s (mode 0600; the daemon proves it holds it on every call)\n",
			hookd.KeyPath(home))
	}
	return ""
}

// protectSettings records the settings file in the workspace at or
// above the current directory, whose gate then protects it against
// writes and deletes like the well-known settings files; a new record is
// audited (ConfigChanged, protected_path_added). Without a workspace it
// returns a note saying what to do.
func protectSettings(ctx context.Context, path string) (note string, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find current directory: %w", err)
	}
	root, err := claudecode.FindWorkspace(wd)
	if err != nil {
		return "note: no Parallax workspace at or above " + wd + ": run `parallax init` in the project " +
			"(until then the hook refuses every tool call there), then install again so the workspace's " +
			"gate protects " + path + "\n", nil
	}
	err = editProtected(ctx, root, path, true)
	if err != nil {
		return "", fmt.Errorf("%w; nothing was installed", err)
	}
	return "", nil
}

// unprotectSettings takes the settings file out of the protected paths
// of the workspace at or above the current directory once no Parallax
// hook entry is left in it (audited: ConfigChanged,
// protected_path_removed). The well-known settings files are protected
// by the gate's own tables and stay protected. It returns a note saying
// what it did, or why the file stays protected.
func unprotectSettings(ctx context.Context, path string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find current directory: %w", err)
	}
	root, err := claudecode.FindWorkspace(wd)
	if err != nil {
		return "", nil // no workspace here: nothing was recorded in one
	}
	list, err := pxworkspace.LoadProtected(root)
	if err != nil || !slices.Contains(list, path) {
		return "", err
	}
	left, err := claudecode.HasHook(path)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w; the workspace %s still protects it", err, root)
	case left:
		return fmt.Sprintf("%s still holds a Parallax hook entry: the workspace %s still protects it\n", path, root), nil
	}
	if err := editProtected(ctx, root, path, false); err != nil {
		return "", err
	}
	return fmt.Sprintf("the workspace %s no longer protects %s\n", root, path), nil
}

// editProtected adds path to (or removes it from) the workspace's
// protected paths and audits the change. If the audit entry cannot be
// written, the change is undone: the list and the chain stay in step.
func editProtected(ctx context.Context, root, path string, add bool) (err error) {
	ws, err := pxworkspace.Open(ctx, root)
	if err != nil {
		return fmt.Errorf("open the workspace %s: %w", root, err)
	}
	defer func() { err = errors.Join(err, ws.Close()) }()
	edit, undo, code, verb := pxworkspace.AddProtected, pxworkspace.RemoveProtected, "protected_path_added", "protects"
	if !add {
		edit, undo, code, verb = pxworkspace.RemoveProtected, pxworkspace.AddProtected, "protected_path_removed", "no longer protects"
	}
	changed, err := edit(root, path)
	if err != nil || !changed {
		return err
	}
	e := audit.Event{Type: audit.ConfigChanged, Detail: audit.Detail{Code: code, Path: path,
		Message: "the gate " + verb + " a Claude Code settings file (parallax hook claude-code)"}}
	if _, err := ws.Audit.Append(ctx, e); err != nil {
		_, uerr := undo(root, path)
		return errors.Join(fmt.Errorf("audit the protected paths of %s: %w", root, err), uerr)
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
// runs. A go run build (deleted when it exits) is refused, and so is a
// --binary that does not run as parallax with the hook command
// (checkHookBinary).
func hookBinary(ctx context.Context, flag string) (string, error) {
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
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", fmt.Errorf("binary %s: %w", bin, err)
	}
	if strings.Contains(abs, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("binary %s is a temporary go run build; build parallax (go build -o bin/parallax ./cmd/parallax) and run install from it, or pass --binary", abs)
	}
	if flag != "" {
		if err := checkHookBinary(ctx, abs); err != nil {
			return "", err
		}
	}
	return abs, nil
}

// binaryCheckTimeout bounds the run of --binary that checks it.
const binaryCheckTimeout = 10 * time.Second

// checkHookBinary runs `BINARY hook claude-code --help` and checks that it
// answers as Parallax's hook command: a hook entry whose binary cannot
// run is one Claude Code ignores (a failing hook does not block).
func checkHookBinary(ctx context.Context, bin string) error {
	st, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("binary %s: %w", bin, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("binary %s is not an executable file; nothing was installed", bin)
	}
	ctx, cancel := context.WithTimeout(ctx, binaryCheckTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "hook", "claude-code", "--help").CombinedOutput() //nolint:gosec // the binary the user named, run to check it
	if err != nil {
		return fmt.Errorf("binary %s does not run (`%s hook claude-code --help`: %w); nothing was installed", bin, bin, err)
	}
	if !bytes.Contains(out, []byte("parallax hook claude-code")) {
		return fmt.Errorf("binary %s is not parallax with the Claude Code hook (its `hook claude-code --help` "+
			"does not name it); nothing was installed", bin)
	}
	return nil
}
