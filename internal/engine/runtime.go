package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/agent"
	"github.com/parallax/parallax/internal/tools/files"
	"github.com/parallax/parallax/internal/tools/shell"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/llm"
	pb "github.com/parallax/parallax/proto/parallax/v1"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/shield"
)

// Files of a running engine in the workspace's state directory.
const (
	lockFile   = "engine.lock"
	socketFile = "engine.sock"
)

// LockPath is the engine's lock of the workspace at root.
func LockPath(root string) string { return filepath.Join(workspace.StateDir(root), lockFile) }

// SocketPath is the client socket of the engine of the workspace at root.
func SocketPath(root string) string { return filepath.Join(workspace.StateDir(root), socketFile) }

// LogPath is where an engine started in the background writes its log.
func LogPath(root string) string { return filepath.Join(workspace.StateDir(root), "engine.log") }

// Environment the engine gives the agent process (besides the link's
// own variables, which agentlink sets).
const (
	// EnvAgentSandbox is "off" when agent.sandbox: off, else "on".
	EnvAgentSandbox = "PARALLAX_AGENT_SANDBOX"
)

// RunningError is returned by OpenRuntime when another engine holds the
// workspace.
type RunningError struct {
	Pid  int // 0 when the lock file names none
	Lock string
}

func (e *RunningError) Error() string {
	if e.Pid > 0 {
		return fmt.Sprintf("an engine (pid %d) already runs for this workspace (lock %s)", e.Pid, e.Lock)
	}
	return "an engine already runs for this workspace (lock " + e.Lock + ")"
}

// ErrRestart is returned by Run when a client asked for a restart: the
// caller opens a new runtime (re-reading the configuration).
var ErrRestart = errors.New("engine: restart requested")

// CrashLoopError is returned by Run when the agent crashed more often
// than the restart budget allows.
type CrashLoopError struct {
	Crashes int
	Window  time.Duration
	Last    string // how the last agent ended
}

func (e *CrashLoopError) Error() string {
	return fmt.Sprintf("engine: the agent crashed %d times within %v (last: %s); stopping — see the agent's log lines above, "+
		"raise agent.restart_budget only if the crashes are understood", e.Crashes, e.Window, e.Last)
}

// SandboxRefusedError is returned by Run when the agent's sandbox report
// failed: the agent is stopped and not restarted.
type SandboxRefusedError struct{ Reason string }

func (e *SandboxRefusedError) Error() string {
	return "engine: the agent's sandbox report failed, so the agent was stopped: " + e.Reason
}

// RuntimeOptions configure OpenRuntime.
type RuntimeOptions struct {
	// Root is the workspace (absolute); Home what ~ means (absolute).
	Root, Home string
	// Getenv reads provider keys (nil: os.Getenv). The agent never sees
	// them.
	Getenv func(string) string
	// AgentCommand builds the command of one agent process; nil runs this
	// executable's `agent` subcommand. Its Env is replaced by the
	// agent's environment (AgentEnv and the engine's own variables).
	AgentCommand func() (*exec.Cmd, error)
	// AgentEnv is the agent's base environment (nil: none at all).
	AgentEnv []string
	// AgentOutput receives the agent's stdout and stderr (nil: os.Stderr).
	AgentOutput io.Writer
	// Version is the engine's build version, reported by Status.
	Version string
	// Sessions keeps the conversations (nil: the workspace database,
	// internal/sessions).
	Sessions Sessions
	// Socket is the client socket path (default SocketPath(Root)).
	Socket string
	// NoApprovals ends escalations as BLOCK instead of asking the clients
	// (an engine started for one headless turn, where nobody can answer).
	NoApprovals bool
	// ShutdownGrace is how long a stopping agent gets (default 3s).
	ShutdownGrace time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
}

// Runtime is a running engine: the workspace, the pipeline, the broker,
// the supervised agent process and the client service.
type Runtime struct {
	opts     RuntimeOptions
	ws       *workspace.Workspace
	pipe     *Pipeline
	broker   *Broker
	settings workspace.AgentSettings
	boot     agent.Bootstrap
	sessions Sessions
	hub      *hub
	auth     authorizer       // the ClientService's credentials
	asks     *clientApprovals // nil without approvals
	approver *approval.Broker
	log      *slog.Logger
	lock     *os.File
	probe    *probeListener // the agent's connect probe target; nil with agent.sandbox: off
	lis      net.Listener
	srv      *grpc.Server
	started  time.Time

	// Measurement hooks (tests): spawn → welcome, and proposal received
	// → verdict and result sent.
	onWelcome, onProposal func(time.Duration)

	allowed, blocked atomic.Uint64
	restarts         atomic.Uint32

	mu       sync.Mutex
	agent    *agentConn               // the welcomed agent, nil while none
	ready    chan struct{}            // closed when an agent is welcomed
	turns    map[string]turnState     // turns in flight, by id
	history  map[string][]llm.Message // completed exchanges, by session (text only)
	shared   sharedTaint              // the highest taint the agent's sessions reached (shareTaint)
	stopOnce sync.Once
	stop     chan error // a client's Shutdown: nil or ErrRestart
	closed   bool
}

// OpenRuntime takes the workspace's engine lock and opens everything
// the engine needs: workspace, pipeline with the files and shell
// executors, LLM broker, prompt files, and the client socket. Nothing
// runs until Run.
func OpenRuntime(ctx context.Context, opts RuntimeOptions) (rt *Runtime, err error) {
	if !filepath.IsAbs(opts.Root) || !filepath.IsAbs(opts.Home) {
		return nil, fmt.Errorf("engine: workspace %q and home %q must be absolute", opts.Root, opts.Home)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 3 * time.Second
	}
	if opts.Socket == "" {
		opts.Socket = SocketPath(opts.Root)
	}
	lock, err := takeLock(opts.Root)
	if err != nil {
		return nil, err
	}
	r := &Runtime{opts: opts, lock: lock, sessions: opts.Sessions, hub: newHub(opts.Now), log: opts.Logger,
		ready: make(chan struct{}), turns: map[string]turnState{}, history: map[string][]llm.Message{}, stop: make(chan error, 1)}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.ws, err = workspace.Open(ctx, opts.Root); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	r.settings = r.ws.Config.AgentSettings()
	if r.sessions == nil {
		if r.sessions, err = openSessions(ctx, r.ws, opts.Home, opts); err != nil {
			return nil, fmt.Errorf("engine: sessions: %w", err)
		}
	}
	var cmdSandbox SandboxHook
	if !r.settings.SandboxOff {
		auditTo := func() shield.Appender {
			if r.pipe == nil {
				return nil
			}
			return r.pipe.cfg.Audit
		}
		if cmdSandbox, err = commandSandbox(opts.Root, opts.Home, r.settings, auditTo); err != nil {
			return nil, err
		}
		if r.probe, err = openProbeListener(); err != nil {
			return nil, err
		}
	}
	tc := &ToolsConfig{Files: files.Config{}, Shell: shell.Runner{Workspace: opts.Root,
		DefaultTimeout: r.settings.CommandTimeout, OutputCap: r.settings.OutputCap, Env: withHome(os.Environ(), opts.Home),
		Scrub: shell.Scrub{Allowlist: true, Drop: keyVars(r.ws.Config)}}, CommandSandbox: cmdSandbox}
	if cmdSandbox != nil {
		tc.CommandTempDir = CommandTempDir(opts.Root, opts.Home)
	}
	if !r.settings.SandboxOff {
		// File operations run in helpers confined to their plan's paths,
		// started from the engine's own open executable.
		if tc.ConfineFiles, err = sandbox.Self(); err != nil {
			return nil, fmt.Errorf("engine: the files sandbox: %w", err)
		}
	}
	var gateApprover shield.Approver
	if !opts.NoApprovals {
		r.asks = newClientApprovals(r.hub)
		if r.approver, _, err = r.ws.Approver(r.asks); err != nil {
			return nil, fmt.Errorf("engine: approvals: %w", err)
		}
		gateApprover = workspace.GateApprover(r.approver)
	}
	if r.pipe, _, err = Open(r.ws, Options{Home: opts.Home, Approver: gateApprover, Tools: tc, Redact: true,
		InternalsHidden: cmdSandbox != nil, Now: opts.Now, Logger: opts.Logger}); err != nil {
		return nil, err
	}
	if r.broker, err = OpenBroker(r.ws, opts.Getenv, opts.Now); err != nil {
		return nil, err
	}
	if r.boot, err = agent.LoadBootstrap(opts.Root, opts.Home); err != nil {
		return nil, fmt.Errorf("engine: prompt files: %w", err)
	}
	for _, w := range r.boot.Warnings {
		r.log.Warn("prompt files", "warning", w)
	}
	token, err := workspace.EnsureClientToken(opts.Root, nil)
	if err != nil {
		return nil, fmt.Errorf("engine: client credential: %w", err)
	}
	r.auth.add(token, Actor{Name: ActorLocalUser, Perms: permAll, Local: true})
	if err := r.listen(); err != nil {
		return nil, err
	}
	return r, nil
}

// takeLock takes the engine's flock of the workspace without waiting
// and writes this pid into it; a held lock is a *RunningError naming
// the holder's pid.
func takeLock(root string) (*os.File, error) {
	path := LockPath(root)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("engine: open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil { //nolint:gosec // a descriptor fits in int
		b, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return nil, &RunningError{Pid: pid, Lock: path}
		}
		return nil, fmt.Errorf("engine: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("engine: write lock %s: %w", path, err)
		}
	}
	return f, nil
}

// EnginePid returns the pid written in the workspace's engine lock when
// an engine holds it, 0 when none runs.
func EnginePid(root string) (int, error) {
	f, err := os.OpenFile(LockPath(root), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil { //nolint:gosec // a descriptor fits in int
		return 0, nil // nobody holds it
	}
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, nil
}

// Settings are the agent settings the runtime runs with.
func (r *Runtime) Settings() workspace.AgentSettings { return r.settings }

// Socket is the client socket's path.
func (r *Runtime) Socket() string { return r.opts.Socket }

// Run supervises the agent and serves clients until ctx ends (nil), a
// client asks for a stop (nil) or a restart (ErrRestart), the agent's
// sandbox fails (*SandboxRefusedError) or it crashes past its budget
// (*CrashLoopError). Close the runtime afterwards.
func (r *Runtime) Run(ctx context.Context) error {
	r.started = r.opts.Now()
	if r.settings.SandboxOff {
		r.log.Warn("agent.sandbox is off: the agent runs WITHOUT its kernel sandbox")
		r.appendAudit(ctx, audit.Event{Type: audit.SandboxCanaryResult, Decision: "BLOCK", Rule: "agent_sandbox_off",
			Reason: "agent.sandbox: off in config.yaml: the agent runs without its kernel sandbox",
			Detail: audit.Detail{Code: "sandbox_off"}})
	}
	go func() { _ = r.srv.Serve(r.lis) }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- r.supervise(ctx) }()
	var err error
	select {
	case err = <-errc:
	case err = <-r.stop:
		cancel()
		<-errc
	case <-ctx.Done():
		<-errc
	}
	return err
}

// requestStop ends Run with err (nil: stop, ErrRestart: restart).
func (r *Runtime) requestStop(err error) {
	r.stopOnce.Do(func() { r.stop <- err })
}

// stopGrace is how long Close lets the calls in flight finish (the
// Shutdown call's own answer among them) before it cuts every
// connection.
const stopGrace = 2 * time.Second

// stopServer stops srv gracefully, within grace: a client asking the
// engine to stop or restart gets its answer instead of a cut connection.
func stopServer(srv *grpc.Server, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		srv.Stop()
		<-done
	}
}

// Close stops serving clients and releases the workspace and the lock.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.hub.close()
	if r.srv != nil {
		stopServer(r.srv, stopGrace)
	}
	var errs []error
	if r.lis != nil {
		_ = os.Remove(r.opts.Socket)
	}
	if r.approver != nil {
		errs = append(errs, r.approver.Close())
	}
	if r.ws != nil {
		errs = append(errs, r.ws.Close())
	}
	r.probe.close()
	if r.lock != nil {
		errs = append(errs, r.lock.Close())
	}
	return errors.Join(errs...)
}

// appendAudit writes an engine entry; a failure is logged (the caller
// has already decided to refuse or stop).
func (r *Runtime) appendAudit(ctx context.Context, e audit.Event) {
	if _, err := r.ws.Audit.Append(context.WithoutCancel(ctx), e); err != nil {
		r.log.Error("audit append failed", "type", string(e.Type), "err", err)
	}
}

// setAgent records the welcomed agent (nil when it went away) and
// fails the turns it had in flight.
func (r *Runtime) setAgent(c *agentConn) {
	r.mu.Lock()
	if c != nil {
		r.agent = c
		close(r.ready)
		r.mu.Unlock()
		return
	}
	r.agent = nil
	r.ready = make(chan struct{})
	ended := make(map[string]string, len(r.turns))
	for turn, ts := range r.turns {
		ended[turn] = ts.session
		delete(r.turns, turn)
	}
	r.mu.Unlock()
	for turn, session := range ended {
		r.turnFailed(context.Background(), session, turn, "agent_exited",
			"the agent process ended during the turn; it is being restarted")
	}
}

// maxFailureText bounds the error text a failed turn leaves in its
// session's history.
const maxFailureText = 2 << 10

// turnFailed tells the clients a turn ended in an error, and leaves the
// error in the session's history (a system message: /history and
// /export show it; the model is not sent it).
func (r *Runtime) turnFailed(ctx context.Context, session, turn, code, msg string) {
	text := msg
	if len(text) > maxFailureText {
		text = text[:maxFailureText] + "…"
	}
	if err := r.sessions.Append(ctx, session, "system", "the turn ended with an error ("+code+"): "+text); err != nil {
		r.log.Warn("keep turn error", "session", clipName(session), "err", err)
	}
	r.hub.publish(&pb.Event{SessionId: session, Kind: &pb.Event_Error{Error: &pb.EventError{Code: code, Message: msg, TurnId: turn}}})
}

// waitAgent returns the welcomed agent, waiting for one until ctx ends.
func (r *Runtime) waitAgent(ctx context.Context) (*agentConn, error) {
	for {
		r.mu.Lock()
		c, ready, closed := r.agent, r.ready, r.closed
		r.mu.Unlock()
		if closed {
			return nil, errors.New("the engine is stopping")
		}
		if c != nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no agent is running: %w", ctx.Err())
		case <-ready:
		}
	}
}

// turnState is a turn in flight: its session and the user's message.
type turnState struct{ session, text string }

// maxHistory bounds the exchanges kept per session for a restarted agent
// (messages; the oldest pairs go first).
const maxHistory = 200

// keepExchange records a completed turn for the session's history.
func (r *Runtime) keepExchange(session, user, reply string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := append(r.history[session], llm.UserText(user),
		llm.Message{Role: llm.Assistant, Content: []llm.Part{llm.TextPart(reply)}})
	if len(h) > maxHistory {
		h = h[len(h)-maxHistory:]
	}
	r.history[session] = h
}

// earlierTurns is what a fresh agent is given of a session before its
// new message: the exchanges this engine kept, or, for a session this
// engine has not run (it was restarted, or the session was started by
// another one), the session's stored messages before the one just
// appended, text only, the last maxHistory of them.
func (r *Runtime) earlierTurns(ctx context.Context, session string) ([]llm.Message, error) {
	if h := r.historyOf(session); len(h) > 0 {
		return h, nil
	}
	stored, err := r.sessions.History(ctx, session)
	if err != nil {
		return nil, err
	}
	if n := len(stored); n > 0 && stored[n-1].Role == "user" {
		stored = stored[:n-1] // the message this turn answers
	}
	var h []llm.Message
	for _, m := range stored {
		switch m.Role {
		case "user":
			h = append(h, llm.UserText(m.Text))
		case "assistant":
			h = append(h, llm.Message{Role: llm.Assistant, Content: []llm.Part{llm.TextPart(m.Text)}})
		}
	}
	if len(h) > maxHistory {
		h = h[len(h)-maxHistory:]
	}
	for len(h) > 0 && h[0].Role != llm.User {
		h = h[1:] // a conversation starts with the user
	}
	return h, nil
}

// historyOf is a copy of the session's completed exchanges.
func (r *Runtime) historyOf(session string) []llm.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Message(nil), r.history[session]...)
}

// keyVars names every variable the workspace's configuration reads an
// API key from: no command's environment holds one, whatever its name.
func keyVars(c workspace.Config) []string {
	var out []string
	if c.LLM != nil {
		for _, m := range c.LLM.Models {
			if m.APIKeyEnv != "" {
				out = append(out, m.APIKeyEnv)
			}
		}
	}
	return out
}

// withHome is env with HOME set to home: a command's ~ is the home the
// gate judged its paths against, whatever the engine's own HOME is.
func withHome(env []string, home string) []string {
	return append(withoutKeys(env, "HOME"), "HOME="+home)
}
