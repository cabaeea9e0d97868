package hookd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/gateway/claudecode"
)

// DefaultCallTimeout is how long the client waits for the daemon before
// it decides in process.
const DefaultCallTimeout = 10 * time.Second

// minInProcess is the least time an in-process decision is started
// with; with less left, the call is refused.
const minInProcess = time.Second

// Options configure the client side of a hook call.
type Options struct {
	// Home and ProjectDir are $HOME and $CLAUDE_PROJECT_DIR.
	Home, ProjectDir string
	// Daemon enables forwarding (PARALLAX_HOOK_DAEMON=off disables it).
	// It needs the install's key (LoadKey(Home)): without a key that
	// loads, no daemon is used or started.
	Daemon bool
	// Identity is this binary's (SelfIdentity); a daemon of another
	// binary refuses.
	Identity Identity
	// CallTimeout bounds the wait for the daemon (0: DefaultCallTimeout).
	CallTimeout time.Duration
	// Start, when set, starts a daemon for the workspace at root, for the
	// next call; it is called when no daemon answered on the socket, one
	// of another binary refused, or the peer did not prove it holds the
	// key (a daemon that takes the workspace's lock replaces its socket).
	// It must not wait for the daemon.
	Start func(root, socket string)
	// Rand is the source of the connection's nonce (nil: crypto/rand).
	Rand io.Reader
}

// Run answers one hook call: through the workspace's daemon when one
// proves it holds the install's key and answers completely, with every
// answer's tag checked, else in process with claudecode.Run, exactly as
// a hook process without a daemon. Its error means what claudecode.Run's
// does: print it, exit with status 2.
func Run(ctx context.Context, opts Options, stdin io.Reader, stdout io.Writer) error {
	buf, rerr := io.ReadAll(io.LimitReader(stdin, claudecode.MaxInputBytes+1))
	if rerr != nil || len(buf) > claudecode.MaxInputBytes || !opts.Daemon {
		return inProcess(ctx, opts, replay(buf, rerr, stdin), stdout)
	}
	key, err := LoadKey(opts.Home)
	if err != nil {
		return inProcess(ctx, opts, bytes.NewReader(buf), stdout) // no key: no daemon, none started
	}
	root, sock, ws, err := route(opts, buf)
	if err != nil {
		return inProcess(ctx, opts, bytes.NewReader(buf), stdout)
	}
	resp, err := Forward(ctx, sock, opts.callTimeout(), Auth{Key: key, Workspace: ws, Rand: opts.Rand},
		&Request{Identity: opts.Identity, Home: opts.Home, ProjectDir: opts.ProjectDir, Stdin: buf})
	if err != nil {
		if errors.Is(err, errOldDaemon) {
			retireOld(ctx, sock)
		}
		if opts.Start != nil && (errors.Is(err, errNoDaemon) || errors.Is(err, errRefused) ||
			errors.Is(err, errUnproven) || errors.Is(err, errOldDaemon)) {
			opts.Start(root, sock)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < minInProcess {
			return fmt.Errorf("the Parallax hook daemon did not answer (%w) and too little time is left to "+
				"decide in process; the tool call is refused to fail closed", err)
		}
		return inProcess(ctx, opts, bytes.NewReader(buf), stdout)
	}
	if len(resp.Stdout) > 0 {
		if _, err := stdout.Write(resp.Stdout); err != nil {
			return fmt.Errorf("write the decision: %w; the tool call is refused to fail closed", err)
		}
	}
	if resp.Err != "" {
		return errors.New(resp.Err)
	}
	return nil
}

func (o Options) callTimeout() time.Duration {
	if o.CallTimeout > 0 {
		return o.CallTimeout
	}
	return DefaultCallTimeout
}

func inProcess(ctx context.Context, opts Options, stdin io.Reader, stdout io.Writer) error {
	return claudecode.Run(ctx, claudecode.Options{Home: opts.Home, ProjectDir: opts.ProjectDir}, stdin, stdout)
}

// replay is what stdin looked like to the reader: the bytes read, then
// the rest of stdin, or the read error.
func replay(buf []byte, err error, rest io.Reader) io.Reader {
	if err != nil {
		return io.MultiReader(bytes.NewReader(buf), errReader{err})
	}
	return io.MultiReader(bytes.NewReader(buf), rest)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// route finds the workspace of a call, its identity and its daemon's
// socket. Only the cwd is read here; the daemon parses the input
// strictly, as in process.
func route(opts Options, buf []byte) (root, sock string, ws WorkspaceID, err error) {
	var in struct {
		Cwd string `json:"cwd"`
	}
	if err := action.CheckBounds(buf); err != nil {
		return "", "", ws, err // refused in process, cheaply, without a decode
	}
	if err := json.Unmarshal(buf, &in); err != nil {
		return "", "", ws, fmt.Errorf("read cwd: %w", err)
	}
	if root, err = claudecode.FindWorkspace(opts.ProjectDir, in.Cwd); err != nil {
		return "", "", ws, err
	}
	if ws, err = WorkspaceOf(root); err != nil {
		return "", "", ws, err
	}
	sock, err = SocketPath(root)
	return root, sock, ws, err
}

// errNoDaemon is a socket nobody listens on.
var errNoDaemon = errors.New("no hook daemon")

// Auth is what a connection to the daemon is authenticated with.
type Auth struct {
	// Key is the install's key; the daemon must prove it holds it.
	Key *Key
	// Workspace is the workspace the daemon must serve.
	Workspace WorkspaceID
	// Rand is the source of the client's nonce (nil: crypto/rand).
	Rand io.Reader
}

// Forward sends one call to the daemon at sock once it proved it holds
// auth's key for auth's workspace, and returns its complete answer, whose
// tag checked out. Any error means the daemon did not decide, or must not
// be believed.
func Forward(ctx context.Context, sock string, timeout time.Duration, auth Auth, req *Request) (Response, error) {
	if auth.Key == nil {
		return Response{}, fmt.Errorf("%w: no key", errUnproven)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return Response{}, fmt.Errorf("%w: %w", errNoDaemon, err)
		}
		return Response{}, fmt.Errorf("dial the hook daemon: %w", err)
	}
	c, ok := nc.(*net.UnixConn)
	if !ok {
		_ = nc.Close()
		return Response{}, errors.New("dial the hook daemon: not a Unix socket")
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	// The same user only (a cheap first filter): what trust rests on is
	// the proof below, since a process of this user can run anything,
	// the parallax binary too.
	if err := samePeer(c); err != nil {
		return Response{}, err
	}
	return exchange(c, auth, req)
}

// exchange runs the authenticated exchange of one call on c: the hello,
// the daemon's proof, the request and the answer.
func exchange(c *net.UnixConn, auth Auth, req *Request) (Response, error) {
	s := &session{key: auth.Key, ws: auth.Workspace}
	var err error
	if s.client, err = newNonce(auth.Rand); err != nil {
		return Response{}, err
	}
	if err := writeHello(c, s.client); err != nil {
		return Response{}, fmt.Errorf("send to the hook daemon: %w", err)
	}
	r := bufio.NewReaderSize(c, 64<<10)
	if err := readProof(r, s); err != nil {
		return Response{}, err // nothing of the call was sent
	}
	if err := writeRequest(c, s, req); err != nil {
		return Response{}, fmt.Errorf("send to the hook daemon: %w", err)
	}
	if err := c.CloseWrite(); err != nil {
		return Response{}, fmt.Errorf("send to the hook daemon: %w", err)
	}
	return readAnswer(r, s)
}
