package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shell"
)

// CommandSandboxConfig is how each executed command's kernel sandbox is
// derived from what the gate analysed.
type CommandSandboxConfig struct {
	// Workspace and Home are absolute, as the gate was built.
	Workspace, Home string
	// Self is this binary: the sandbox is applied by a re-executed copy
	// of it (sandbox.ExecArg) that then execs the command.
	Self string
	// Caches are the toolchain caches a command may write (absolute;
	// missing ones are skipped).
	Caches []string
	// Unreadable are the paths no command may read (guard.Unreadable).
	Unreadable []string
	// TempRoot holds each command's private temp directory ("" =
	// os.TempDir()).
	TempRoot string
}

// SandboxHook is the per-command hook of ToolsConfig: the wrapper that
// puts one command in its sandbox, and what to do once it ended.
type SandboxHook func(act *action.Action) (wrap func(*exec.Cmd) error, done func(), err error)

// NewCommandSandbox returns the hook that gives each command its own
// sandbox: write access to the workspace, a private temp directory, the
// caches and the paths the analysis says it writes outside the
// workspace; read access everywhere but the unreadable paths; network
// only when the analysis found network effects; the unreadable
// directories inside the workspace (its .parallax) hidden behind an
// empty read-only mount. What the gate believes a command does is what
// the kernel lets it do.
//
// Hiding needs user namespaces. They are probed once, here, by running
// the whole wrapper in check mode; where the kernel refuses them the
// sandbox is not built and the engine does not start with it on, with
// the reason and the sysctls to look at. Falling back to a sandbox that
// leaves the audit chain, database and policy writable to every command
// would make the guarantee depend on the machine, silently for whoever
// does not read the warning.
func NewCommandSandbox(cfg CommandSandboxConfig) (SandboxHook, error) {
	if !filepath.IsAbs(cfg.Workspace) || !filepath.IsAbs(cfg.Home) || !filepath.IsAbs(cfg.Self) {
		return nil, errors.New("command sandbox: workspace, home and self must be absolute")
	}
	if err := sandbox.Support().Usable(); err != nil {
		return nil, fmt.Errorf("command sandbox: %w", err)
	}
	if err := sandbox.ProbeHide(context.Background(), cfg.Self); err != nil {
		return nil, fmt.Errorf("command sandbox: cannot hide the workspace's .parallax from commands: %w", err)
	}
	return func(act *action.Action) (func(*exec.Cmd) error, func(), error) {
		code := action.ShellCode(act)
		if code == "" {
			return nil, nil, errors.New("not a shell command")
		}
		spec := cfg.spec(code)
		tmp, err := os.MkdirTemp(cfg.TempRoot, "parallax-cmd-")
		if err != nil {
			return nil, nil, fmt.Errorf("private temp directory: %w", err)
		}
		done := func() { _ = os.RemoveAll(tmp) }
		spec.TempDir = tmp
		wrap := func(c *exec.Cmd) error {
			argv := append([]string{c.Path}, c.Args[1:]...)
			sc, err := spec.Command(context.Background(), cfg.Self, argv) // only its path and arguments are taken: the runner owns the process
			if err != nil {
				return err
			}
			c.Path, c.Args = sc.Path, sc.Args
			spec.SetSysProcAttr(c) // the runner adds its process group to these
			c.Env = append(withoutKey(c.Env, "TMPDIR"), "TMPDIR="+tmp)
			return nil
		}
		return wrap, done, nil
	}, nil
}

// spec is the sandbox of one command, from its analysis.
func (cfg CommandSandboxConfig) spec(code string) sandbox.CommandSpec {
	eff := shell.Analyze(code, shell.Options{Cwd: cfg.Workspace, Home: cfg.Home})
	s := sandbox.CommandSpec{Workspace: cfg.Workspace, Caches: cfg.Caches, Network: len(eff.Network) > 0}
	for _, p := range cfg.Unreadable {
		// Inside the workspace nothing is carved out of the Landlock
		// grant (a grant covers a whole tree, and granting the workspace
		// around .parallax would leave its top level unable to hold a new
		// file: go mod init, git init). Its unreadable directories are
		// hidden instead, behind an empty read-only mount; an unreadable
		// file inside the workspace stays the gate's alone.
		if within(p, cfg.Workspace) {
			if st, err := os.Lstat(p); err == nil && st.IsDir() && p != cfg.Workspace {
				s.Hide = append(s.Hide, p)
			}
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			s.ReadDeny = append(s.ReadDeny, p)
		}
	}
	seen := map[string]bool{}
	for _, u := range eff.Paths {
		if u.Glob || u.Access&(action.AccessWrite|action.AccessDelete) == 0 || within(u.Path, cfg.Workspace) {
			continue
		}
		if g := cfg.writeGrant(u.Path); g != "" && !seen[g] {
			seen[g] = true
			s.Write = append(s.Write, g)
		}
	}
	return s
}

// writeGrant is what to grant for a write to p outside the workspace:
// p itself when it exists, else the directory that will hold it — but
// never the home, the root or a directory above the workspace or the
// home (a grant covers a whole tree; a write there fails instead, and
// the failure is the model's to read).
func (cfg CommandSandboxConfig) writeGrant(p string) string {
	if _, err := os.Lstat(p); err == nil {
		return p
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	dir := filepath.Dir(p)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	if dir == "/" || within(cfg.Home, dir) || within(cfg.Workspace, dir) {
		return ""
	}
	return dir
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func withoutKey(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
