package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/hookrelay"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shield"
)

// SandboxRun is one program (an agent we do not own: Claude Code, a
// script) run in the sandbox the own agent's commands get, from a
// profile instead of a verdict: the workspace writable except its
// host-trusted files, every .parallax and ~/.parallax hidden, secret
// files masked, the home read-only, a private /tmp, its own PID, network,
// IPC and UTS namespaces (nothing it starts outlives it), the network
// only through the egress proxy to the workspace's registries and Hosts,
// resources bounded as agent.command.limits says.
type SandboxRun struct {
	// Root is the workspace (initialised); Home what ~ means.
	Root, Home string
	// Settings are the workspace's agent settings (caches, registries,
	// limits).
	Settings workspace.AgentSettings
	// Hosts are the hosts the program may reach beside the registries:
	// "host", "host:port", "*.suffix", or a loopback "IP:port", which is
	// relayed from inside the program's namespace to the same address
	// on the host (a local model server).
	Hosts []string
	// Argv is the program and its arguments; Argv[0] is looked up in
	// PATH of Env.
	Argv []string
	// Env is the program's environment; the sandbox sets TMPDIR and the
	// proxy variables.
	Env []string
	// Stdin, Stdout and Stderr are the program's (nil: nothing).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Hook, when set, decides the Claude Code hook calls made inside
	// (the hook cannot open the hidden workspace state there): they come
	// out over a socket in the sandbox's /tmp (hookrelay), named to the
	// program by PARALLAX_HOOK_RELAY.
	Hook hookrelay.Decide
	// Writable are more paths the program may change (existing
	// directories or files: its own configuration, ~/.claude); ReadOnly
	// are paths below them it may not (its settings, hooks, skills).
	Writable, ReadOnly []string
}

// relaySocket is the relay's socket name in the sandbox's /tmp.
const relaySocket = "parallax-hook.sock"

// ErrSandboxRun marks a run that could not be started (its program was
// never run).
var ErrSandboxRun = errors.New("sandbox run")

// RunSandboxed runs r's program in its sandbox and waits for it. It
// returns the program's exit status and the notes of how the sandbox
// ended (a limit reached, a host-trusted file created and moved aside).
// The start and the end are audited (SessionStarted, SessionEnded), and
// every connection through the proxy (EgressConnection).
func RunSandboxed(ctx context.Context, r SandboxRun) (int, []string, error) {
	if len(r.Argv) == 0 {
		return -1, nil, fmt.Errorf("%w: no program to run", ErrSandboxRun)
	}
	ws, err := workspace.Open(ctx, r.Root)
	if err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	defer ws.Close()
	self, err := sandbox.Self()
	if err != nil {
		return -1, nil, fmt.Errorf("%w: the sandbox's wrapper: %v", ErrSandboxRun, err)
	}
	if err := workspace.Register(r.Home, r.Root); err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	cfg, registries := settingsSandbox(r.Root, r.Home, r.Settings) // registries: its own copy
	var hosts []string
	for _, h := range r.Hosts {
		if ap, err := netip.ParseAddrPort(h); err == nil && ap.Addr().IsLoopback() {
			// Relayed through the proxy, whose rules allow it as a
			// registry of this run.
			cfg.Forward = append(cfg.Forward, ap)
			registries = append(registries, h)
			continue
		}
		hosts = append(hosts, h)
	}
	cfg.Self, cfg.Registries = self, registries
	cfg.Egress = egressServer(registries, func() shield.Appender { return ws.Audit })
	if err := cfg.ready(ctx); err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	plan, err := cfg.plan("", false)
	if err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	plan.spec.Network, plan.hosts = true, hosts
	for _, w := range r.Writable {
		if _, err := os.Lstat(w); err != nil {
			return -1, nil, fmt.Errorf("%w: a writable path: %v", ErrSandboxRun, err)
		}
		plan.spec.Write = append(plan.spec.Write, realPath(w))
	}
	for _, ro := range r.ReadOnly {
		if _, err := os.Lstat(ro); err == nil {
			plan.spec.ReadOnly = append(plan.spec.ReadOnly, realPath(ro))
		}
	}
	env := append([]string(nil), r.Env...)
	prog := r.Argv[0]
	if !strings.Contains(prog, "/") {
		if prog, err = lookPath(prog, env); err != nil {
			return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
		}
	}
	if keep, err := keptForProgram(prog, r.Root, r.Home); err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	} else if keep != "" {
		plan.spec.Keep = append(plan.spec.Keep, keep)
	}
	var relay net.Listener
	inTemp := func(tmp string) error {
		if r.Hook == nil {
			return nil
		}
		var err error
		if relay, err = listenIn(tmp, relaySocket); err != nil {
			return fmt.Errorf("the hook relay: %w", err)
		}
		go func() { _ = hookrelay.Serve(relay, 30*time.Second, r.Hook) }()
		env = append(withoutKeys(env, hookrelay.EnvSocket), hookrelay.EnvSocket+"="+filepath.Join("/tmp", relaySocket))
		return nil
	}
	wrap, done, err := cfg.provision(plan, inTemp)
	if err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	defer func() {
		if relay != nil {
			_ = relay.Close()
		}
	}()

	cmd := exec.Command(prog, r.Argv[1:]...)
	cmd.Dir, cmd.Env = r.Root, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.Stdin, r.Stdout, r.Stderr
	if err := wrap(cmd); err != nil {
		_ = done()
		return -1, nil, fmt.Errorf("%w: %v", ErrSandboxRun, err)
	}
	session := "sandbox-" + randomID()
	what := filepath.Base(r.Argv[0]) + "; hosts: " + strings.Join(r.Hosts, ", ")
	if _, err := ws.Audit.Append(ctx, audit.Event{Type: audit.SessionStarted, Session: session,
		Detail: audit.Detail{Code: "sandbox_run_started", Message: clipReason(what)}}); err != nil {
		_ = done()
		return -1, nil, fmt.Errorf("%w: the audit chain: %v", ErrSandboxRun, err)
	}
	runErr := cmd.Run()
	notes := done().Notes
	code := 0
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell reports it
		}
	default:
		code = -1
	}
	e := audit.Event{Type: audit.SessionEnded, Session: session,
		Detail: audit.Detail{Code: "sandbox_run_ended", ExitCode: int64(code), Message: clipReason(strings.Join(notes, "; "))}}
	if _, err := ws.Audit.Append(context.WithoutCancel(ctx), e); err != nil {
		return code, notes, fmt.Errorf("the end of the run could not be audited: %w", err)
	}
	if code == -1 && runErr != nil {
		return code, notes, runErr
	}
	return code, notes, nil
}

// lookPath finds prog in the PATH of env.
func lookPath(prog string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, prog)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("%s: not found in PATH", prog)
}

// listenIn listens on a Unix socket named name in dir, through the
// directory's descriptor: a socket's path is bounded (108 bytes), a
// temporary directory's need not be. The socket goes with the directory.
func listenIn(dir, name string) (net.Listener, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(fd)
	ln, err := net.Listen("unix", fmt.Sprintf("/proc/self/fd/%d/%s", fd, name))
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// keptForProgram is the directory under /tmp or /var/tmp that must stay
// visible in the sandbox's private /tmp for prog to start there (a
// program installed under a temporary directory: the path named and
// the file it leads to, through their nearest common directory), or ""
// when prog lies elsewhere or in the workspace or home (seen anyway).
func keptForProgram(prog, root, home string) (string, error) {
	abs, err := filepath.Abs(prog)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("the program %s: %w", prog, err)
	}
	dirOf := func(p string) string {
		d := filepath.Dir(p)
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return r
		}
		return d
	}
	a, b := dirOf(abs), filepath.Dir(real)
	for !within(b, a) {
		a = filepath.Dir(a)
	}
	private := false
	for _, t := range []string{"/tmp", "/var/tmp"} {
		if within(a, t) {
			private = true
			if a == t {
				return "", fmt.Errorf("the program %s lies directly in %s, which the sandbox makes its own; install it elsewhere", prog, t)
			}
		}
	}
	for _, seen := range []string{root, home} {
		if within(a, realPath(seen)) || within(a, seen) {
			return "", nil
		}
	}
	if !private {
		return "", nil
	}
	return a, nil
}
