package agentlink

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"

	parallaxv1 "github.com/parallax/parallax/proto/parallax/v1"
)

// ErrRedial is returned by the agent's dialer when gRPC asks for a second
// connection: the inherited descriptor is the only one there is.
var ErrRedial = errors.New("agentlink: the inherited link was already used")

// Client is the agent's end of the link.
type Client struct {
	cc     *grpc.ClientConn
	token  secret
	dialer *fdDialer
}

// Dial takes the link the engine passed down: the descriptor number and
// token from the environment (both removed from it at once, whatever
// happens next), and a gRPC client whose only connection is that
// descriptor. It never calls socket() or connect(). It returns when the
// link is up, or fails when it cannot come up before ctx ends.
func Dial(ctx context.Context, opts ...grpc.DialOption) (*Client, error) {
	fdText, fdSet := os.LookupEnv(EnvFD)
	tok, tokSet := os.LookupEnv(EnvToken)
	os.Unsetenv(EnvFD)
	os.Unsetenv(EnvToken)
	if !fdSet || !tokSet {
		return nil, fmt.Errorf("agentlink: dial: %s and %s must both be set", EnvFD, EnvToken)
	}
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("agentlink: dial: %s=%q is not a descriptor number above 2", EnvFD, fdText)
	}
	if raw, err := hex.DecodeString(tok); err != nil || len(raw) != tokenBytes {
		return nil, fmt.Errorf("agentlink: dial: %s is not %d hex-encoded bytes", EnvToken, tokenBytes)
	}
	d := &fdDialer{file: os.NewFile(uintptr(fd), "agentlink")}
	c := &Client{token: secret(tok), dialer: d}
	all := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()), // a private socketpair
		grpc.WithContextDialer(d.dial),
		grpc.WithPerRPCCredentials(tokenCreds{c.token}),
		grpc.WithIdleTimeout(0), // going idle would close the only connection for good
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	}, opts...)
	cc, err := grpc.NewClient("passthrough:///agent", all...)
	if err != nil {
		d.discard()
		return nil, fmt.Errorf("agentlink: dial: %w", err)
	}
	c.cc = cc
	if err := waitReady(ctx, cc); err != nil {
		cc.Close()
		if derr := d.failure(); derr != nil {
			err = fmt.Errorf("%w: %w", err, derr)
		}
		return nil, fmt.Errorf("agentlink: dial: %w", err)
	}
	return c, nil
}

func waitReady(ctx context.Context, cc *grpc.ClientConn) error {
	cc.Connect()
	for {
		st := cc.GetState()
		switch st {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return fmt.Errorf("link is %v", st)
		}
		if !cc.WaitForStateChange(ctx, st) {
			return fmt.Errorf("link not ready: %w", ctx.Err())
		}
	}
}

// Agent is the AgentService client.
func (c *Client) Agent() parallaxv1.AgentServiceClient { return parallaxv1.NewAgentServiceClient(c.cc) }

// Hello is the first message of the Connect stream.
func (c *Client) Hello(agentVersion string) *parallaxv1.AgentMessage {
	return &parallaxv1.AgentMessage{Msg: &parallaxv1.AgentMessage_Hello{Hello: &parallaxv1.Hello{
		ProtocolVersion: parallaxv1.ProtocolVersion,
		Token:           string(c.token),
		Pid:             int64(os.Getpid()),
		AgentVersion:    agentVersion,
	}}}
}

// Close closes the link.
func (c *Client) Close() error { return c.cc.Close() }

// String keeps the token out of logs.
func (c *Client) String() string { return "agentlink.Client" }

// GoString keeps the token out of %#v.
func (c *Client) GoString() string { return "agentlink.Client" }

// fdDialer hands gRPC the inherited descriptor, once. It is the link's
// only source of connections: nothing here dials.
type fdDialer struct {
	mu   sync.Mutex
	file *os.File // nil once used
	err  error    // why the one dial failed
}

func (d *fdDialer) failure() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

func (d *fdDialer) dial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := d.dialOnce(ctx, addr)
	if err != nil && !errors.Is(err, ErrRedial) {
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
	}
	return c, err
}

func (d *fdDialer) take() *os.File {
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.file
	d.file = nil
	return f
}

func (d *fdDialer) discard() {
	if f := d.take(); f != nil {
		f.Close()
	}
}

func (d *fdDialer) dialOnce(ctx context.Context, _ string) (net.Conn, error) {
	f := d.take()
	if f == nil {
		return nil, ErrRedial
	}
	conn, err := net.FileConn(f) // dup(2)s the descriptor, close-on-exec
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("agentlink: inherited descriptor: %w", err)
	}
	if _, ok := conn.(*net.UnixConn); !ok {
		conn.Close()
		return nil, fmt.Errorf("agentlink: inherited descriptor is %T, not a unix socket", conn)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetWriteDeadline(dl)
	}
	if _, err := conn.Write(preamble); err != nil {
		conn.Close()
		return nil, fmt.Errorf("agentlink: write link preamble: %w", err)
	}
	conn.SetWriteDeadline(time.Time{})
	return conn, nil
}

// tokenCreds puts the token on every call.
type tokenCreds struct{ token secret }

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{tokenKey: string(t.token)}, nil
}

func (tokenCreds) RequireTransportSecurity() bool { return false }
