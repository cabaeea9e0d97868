package hookd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/internal/gateway/claudecode"
	"github.com/parallax/parallax/internal/workspace"
)

// DefaultIdle is how long a daemon waits for a call before it exits.
const DefaultIdle = 10 * time.Minute

// callTimeout bounds one connection on the daemon's side (reading the
// request, deciding, writing the answer); the hook's own limit is 30 s.
const callTimeout = 60 * time.Second

// ErrRunning is returned by Serve when another daemon holds the
// workspace's lock.
var ErrRunning = errors.New("a hook daemon already serves this workspace")

// Server is the decision daemon of one workspace.
type Server struct {
	// Socket is the path to listen on (SocketPath).
	Socket string
	// Identity is this binary's; calls from another one are refused and
	// the server stops.
	Identity Identity
	// Idle is how long to wait for a call before stopping (0: DefaultIdle).
	Idle time.Duration
	// LockWait is how long to wait for another daemon to let go of the
	// workspace (one that is exiting); 0 does not wait.
	LockWait time.Duration
	// Decide answers one call (nil: Decide).
	Decide func(ctx context.Context, req *Request) Response
	// Ready, when set, is closed once the socket accepts calls.
	Ready chan struct{}
	// Workspace, when set, is the root of the workspace served: its
	// identity (WorkspaceOf) is bound into every tag, and the server
	// stops once its .parallax is removed or replaced. Unset, the zero
	// identity is bound, which no client of a workspace accepts.
	Workspace string
	// KeyFile is the install's key (KeyPath): the server proves it holds
	// it on every connection and answers only requests tagged with it.
	// Serve refuses to start without a key that loads (LoadKeyFile), and
	// stops once the file is removed or replaced.
	KeyFile string
	// Rand is the source of the server's nonces (nil: crypto/rand); it
	// must be safe for concurrent use.
	Rand io.Reader
	// Watch is how often the server checks that the workspace's
	// .parallax, its socket, its executable (Identity.Path) and its key
	// file are the ones it started with (0: DefaultWatch).
	Watch time.Duration

	key    *Key             // loaded from KeyFile by Serve
	ws     WorkspaceID      // the served workspace's, bound into every tag
	ticks  <-chan time.Time // replaces the Watch ticker (tests)
	why    string           // why the watch stopped the server (tests)
	mu     sync.Mutex       // one decision at a time
	calls  sync.WaitGroup
	active atomic.Int64 // calls in flight
	stop   chan struct{}
	once   sync.Once
}

// decideTimeout bounds one decision, as hookTimeout bounds a hook process.
const decideTimeout = 30 * time.Second

// Decide answers a forwarded call as a hook process does: claudecode.Run
// on its stdin bytes with its HOME and CLAUDE_PROJECT_DIR.
func Decide(ctx context.Context, req *Request) Response {
	ctx, cancel := context.WithTimeout(ctx, decideTimeout)
	defer cancel()
	var out bytes.Buffer
	opts := claudecode.Options{Home: req.Home, ProjectDir: req.ProjectDir}
	var resp Response
	if err := claudecode.Run(ctx, opts, bytes.NewReader(req.Stdin), &out); err != nil {
		resp.Err = err.Error()
	}
	resp.Stdout = out.Bytes()
	return resp
}

// Serve loads the key, then listens until ctx is done, the idle time
// passes without a call, a client of another binary calls, or what it
// serves is gone (the workspace's .parallax, the socket, the executable
// or the key file removed or replaced); then it finishes the calls in
// flight and returns. The
// socket is removed if it is still the server's; the lock file stays (it
// is what orders daemons of the same workspace).
func (s *Server) Serve(ctx context.Context) (err error) {
	key, keyID, err := loadKeyFile(s.KeyFile)
	if err != nil {
		return err
	}
	s.key = key
	lock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer lock.Close() // releases the flock
	_ = os.Remove(s.Socket)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.Socket, Net: "unix"})
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Socket, err)
	}
	ln.SetUnlinkOnClose(false) // the watch removes it, if it is still this one
	w, err := newWatch(s.Workspace, s.Socket, s.Identity, keyID)
	if err != nil {
		return errors.Join(err, ln.Close(), os.Remove(s.Socket))
	}
	defer func() { err = errors.Join(err, w.close()) }()
	s.ws = WorkspaceID{Dev: w.dirID.dev, Ino: w.dirID.ino}
	if err := os.Chmod(s.Socket, 0o600); err != nil {
		return errors.Join(fmt.Errorf("socket mode: %w", err), ln.Close(), w.removeSocket())
	}
	s.stop = make(chan struct{})
	guard.ShareFilesystemReads() // many decisions in one process: keep the reads inotify says are unchanged
	pool := workspace.NewPool()
	defer func() { err = errors.Join(err, pool.Close()) }()
	ctx = workspace.WithPool(ctx, pool)
	if s.Ready != nil {
		close(s.Ready)
	}
	accepted, acceptDone := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(acceptDone)
		s.accept(ctx, ln, accepted)
	}()
	s.why = s.wait(ctx, accepted, w)
	err = errors.Join(ln.Close(), w.removeSocket())
	<-acceptDone // no call is added after this
	s.calls.Wait()
	return err
}

// wait returns when the server is to stop: the reason when the watch
// found what it serves gone, else "".
func (s *Server) wait(ctx context.Context, accepted <-chan struct{}, w *watch) string {
	idle := s.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	t := time.NewTimer(idle)
	defer t.Stop()
	ticks, stopTicks := s.ticker()
	defer stopTicks()
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-s.stop:
			return ""
		case <-accepted:
			t.Reset(idle)
		case <-t.C:
			if s.active.Load() == 0 {
				return ""
			}
			t.Reset(idle)
		case <-ticks:
			if why := w.gone(); why != "" {
				return why
			}
		}
	}
}

// lock takes the workspace's daemon lock, waiting up to LockWait.
func (s *Server) lock(ctx context.Context) (*os.File, error) {
	f, err := os.OpenFile(s.Socket+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	deadline := time.Now().Add(s.LockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) //nolint:gosec // a descriptor fits in int
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, errors.Join(fmt.Errorf("daemon lock: %w", err), f.Close())
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return nil, errors.Join(ErrRunning, f.Close())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) accept(ctx context.Context, ln *net.UnixListener, accepted chan<- struct{}) {
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		select {
		case accepted <- struct{}{}:
		default:
		}
		s.calls.Add(1)
		s.active.Add(1)
		go func() {
			defer s.calls.Done()
			defer s.active.Add(-1)
			s.handle(context.WithoutCancel(ctx), c)
		}()
	}
}

// handle serves one connection. Anything wrong ends it without an
// answer or with a refusal: the client then decides in process. Nothing
// is read of the call before the client's hello, and nothing is decided
// for a request whose tag does not check out (a client without the key).
func (s *Server) handle(ctx context.Context, c *net.UnixConn) {
	defer func() {
		_ = recover() // a panic is a call without answer, never the daemon's end
		_ = c.Close()
	}()
	_ = c.SetDeadline(time.Now().Add(callTimeout))
	if err := samePeer(c); err != nil {
		return
	}
	r := bufio.NewReaderSize(c, 64<<10)
	sess := &session{key: s.key, ws: s.ws}
	var err error
	if sess.client, err = readHello(r); err != nil {
		return
	}
	if sess.daemon, err = newNonce(s.Rand); err != nil {
		return
	}
	if err := writeProof(c, sess); err != nil {
		return
	}
	req, err := readRequest(r, sess)
	if err != nil {
		return
	}
	if req.Identity != s.Identity {
		_ = writeAnswer(c, sess, Response{}, "this daemon runs another parallax binary; it exits")
		s.once.Do(func() { close(s.stop) })
		return
	}
	decide := s.Decide
	if decide == nil {
		decide = Decide
	}
	resp := s.decideOne(ctx, decide, req)
	if err := writeAnswer(c, sess, resp, ""); err != nil {
		s.recordLate(req)
	}
}

// CodeAnswerLate is the detail code of the ShieldError entry a daemon
// appends when its answer could not be delivered: the hook had given up
// waiting (its watchdog denied the call, so the tool did not run as the
// decision just recorded says), or died.
const CodeAnswerLate = "hook_answer_undelivered"

// recordLate says in the workspace's audit chain that the decision just
// recorded never reached the hook.
func (s *Server) recordLate(req *Request) {
	if s.Workspace == "" {
		return
	}
	l, err := audit.Open(audit.DefaultPath(s.Workspace), audit.Options{})
	if err != nil {
		return
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	session := action.TopLevelString(req.Stdin, "session_id")
	_, _ = l.Append(ctx, audit.Event{Type: audit.ShieldError, Session: session, Detail: audit.Detail{Code: CodeAnswerLate,
		Message: "the daemon's decision reached no hook (it had given up and denied the call, or died): the decision " +
			"recorded just before this entry did not take effect"}})
}

// decideOne runs one decision at a time. The lock is released when the
// decision panics (the panic goes on to handle: no answer); held, it
// would stall every later call until the daemon died.
func (s *Server) decideOne(ctx context.Context, decide func(context.Context, *Request) Response, req *Request) Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return decide(ctx, req)
}
