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
	Daemon bool
	// Identity is this binary's (SelfIdentity); a daemon of another
	// binary refuses.
	Identity Identity
	// CallTimeout bounds the wait for the daemon (0: DefaultCallTimeout).
	CallTimeout time.Duration
	// Start, when set, starts a daemon for the workspace at root, for the
	// next call; it is called when no daemon answered on the socket, or
	// one of another binary refused. It must not wait for the daemon.
	Start func(root, socket string)
}

// Run answers one hook call: through the workspace's daemon when one
// answers completely, else in process with claudecode.Run, exactly as a
// hook process without a daemon. Its error means what claudecode.Run's
// does: print it, exit with status 2.
func Run(ctx context.Context, opts Options, stdin io.Reader, stdout io.Writer) error {
	buf, rerr := io.ReadAll(io.LimitReader(stdin, claudecode.MaxInputBytes+1))
	if rerr != nil || len(buf) > claudecode.MaxInputBytes || !opts.Daemon {
		return inProcess(ctx, opts, replay(buf, rerr, stdin), stdout)
	}
	root, sock, err := route(opts, buf)
	if err != nil {
		return inProcess(ctx, opts, bytes.NewReader(buf), stdout)
	}
	resp, err := Forward(ctx, sock, opts.callTimeout(), &Request{Identity: opts.Identity, Home: opts.Home,
		ProjectDir: opts.ProjectDir, Stdin: buf})
	if err != nil {
		if opts.Start != nil && (errors.Is(err, errNoDaemon) || errors.Is(err, errRefused) || errors.Is(err, errForeign)) {
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

// route finds the workspace of a call and its daemon's socket. Only the
// cwd is read here; the daemon parses the input strictly, as in process.
func route(opts Options, buf []byte) (root, sock string, err error) {
	var in struct {
		Cwd string `json:"cwd"`
	}
	if err := action.CheckBounds(buf); err != nil {
		return "", "", err // refused in process, cheaply, without a decode
	}
	if err := json.Unmarshal(buf, &in); err != nil {
		return "", "", fmt.Errorf("read cwd: %w", err)
	}
	if root, err = claudecode.FindWorkspace(opts.ProjectDir, in.Cwd); err != nil {
		return "", "", err
	}
	sock, err = SocketPath(root)
	return root, sock, err
}

// errNoDaemon is a socket nobody listens on.
var errNoDaemon = errors.New("no hook daemon")

// Forward sends one call to the daemon at sock and returns its complete
// answer. Any error means the daemon did not decide.
func Forward(ctx context.Context, sock string, timeout time.Duration, req *Request) (Response, error) {
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
	pid, err := samePeer(c)
	if err != nil {
		return Response{}, err
	}
	// A peer that does not run this binary may be an old daemon (the
	// binary was replaced: the call tells it to exit) or anything else
	// that bound the socket: it is sent the call, never believed.
	trusted := runsBinary(pid, req.Identity)
	if err := writeRequest(c, req); err != nil {
		return Response{}, fmt.Errorf("send to the hook daemon: %w", err)
	}
	if err := c.CloseWrite(); err != nil {
		return Response{}, fmt.Errorf("send to the hook daemon: %w", err)
	}
	resp, err := readAnswer(bufio.NewReaderSize(c, 64<<10))
	if err == nil && !trusted {
		err = errForeign
	}
	return resp, err
}

// errForeign is a peer that does not run this binary.
var errForeign = errors.New("the process on the hook socket does not run this parallax binary")
