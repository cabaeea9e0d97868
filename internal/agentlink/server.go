package agentlink

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	parallaxv1 "github.com/parallax/parallax/proto/parallax/v1"
)

// Reasons a link refuses a call. A *RefusedError wraps one of them.
var (
	ErrPeer         = errors.New("peer is not the spawned agent")
	ErrToken        = errors.New("wrong or missing agent token")
	ErrSecondStream = errors.New("agent stream already opened")
	ErrHello        = errors.New("first message is not a valid hello")
	ErrVersion      = errors.New("protocol version mismatch")
)

// RefusedError is one refused attempt on a link, for the audit chain. It
// never contains the token.
type RefusedError struct {
	Method string // the gRPC method, or "handshake"
	Err    error  // ErrPeer, ErrToken, ErrSecondStream, ErrHello or ErrVersion
	Detail string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("agentlink: refused %s: %v: %s", e.Method, e.Err, e.Detail)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Config is what a link serves.
type Config struct {
	// Agent serves AgentService.Connect; required. Its handler receives a
	// stream whose first message has been checked to be the spawned
	// agent's Hello, and it cannot send before that.
	Agent parallaxv1.AgentServiceServer
	// Refused is called, from the goroutine that refused it, with every
	// refused attempt. It must not block for long.
	Refused func(*RefusedError)
	// Logger receives refusals; nil uses slog.Default().
	Logger *slog.Logger
}

// Server is the engine's end of one agent link, serving gRPC on the one
// connection of its pair.
type Server struct {
	cfg   Config
	pid   int32
	uid   uint32
	token secret
	grpc  *grpc.Server
	lis   *oneConn

	connected atomic.Bool
	done      chan struct{}
	err       error
	stopOnce  sync.Once
}

// Serve starts serving the pair for the child pid, which must already
// hold its end (Attach, then exec.Cmd.Start): the child's end is closed
// here. Only that process, with this process's uid, presenting the token
// on every call, is served; one AgentService.Connect stream is allowed in
// the link's lifetime. Cancelling ctx stops the server. Wait reports how
// serving ended.
func (p *Pair) Serve(ctx context.Context, pid int, cfg Config) (*Server, error) {
	if cfg.Agent == nil {
		return nil, errors.New("agentlink: serve: Config.Agent is nil")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.attached:
		return nil, errors.New("agentlink: serve: pair not attached to a command")
	case p.served || p.engine == nil:
		return nil, errors.New("agentlink: serve: pair already served or closed")
	case pid <= 0:
		return nil, fmt.Errorf("agentlink: serve: bad child pid %d", pid)
	}
	if p.agent != nil {
		p.agent.Close() // the child has its own copy now
		p.agent = nil
	}
	fc, err := net.FileConn(p.engine)
	p.engine.Close()
	p.engine = nil
	p.served = true
	if err != nil {
		return nil, fmt.Errorf("agentlink: serve: %w", err)
	}
	uc, ok := fc.(*net.UnixConn)
	if !ok {
		fc.Close()
		return nil, fmt.Errorf("agentlink: serve: engine end is %T, not a unix socket", fc)
	}
	s := &Server{cfg: cfg, pid: int32(pid), uid: uint32(os.Getuid()), token: p.token, done: make(chan struct{})}
	s.lis = newOneConn(uc, s.verifyPeer)
	s.grpc = grpc.NewServer(
		grpc.Creds(insecure.NewCredentials()), // a private socketpair; identity is checked below
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.UnaryInterceptor(s.unaryGuard),
		grpc.StreamInterceptor(s.streamGuard),
		grpc.WaitForHandlers(true),
	)
	parallaxv1.RegisterAgentServiceServer(s.grpc, cfg.Agent)
	go s.run()
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.done:
		}
	}()
	return s, nil
}

func (s *Server) run() {
	err := s.grpc.Serve(s.lis)
	s.grpc.Stop() // the connection is gone: end the handlers too
	if errors.Is(err, errLinkEnded) || errors.Is(err, grpc.ErrServerStopped) {
		err = nil
	}
	s.err = err
	close(s.done)
}

// Wait blocks until the server has stopped and every handler returned. It
// returns nil when the connection ended or Stop was called, and the
// handshake error (a *RefusedError for a foreign peer) otherwise.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Stop closes the link, cancels the running handlers and waits for them.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.lis.Close()
		s.grpc.Stop()
	})
	<-s.done
}

// refuse reports a refused attempt and returns the status the caller sees.
func (s *Server) refuse(code codes.Code, method string, reason error, detail string) error {
	e := &RefusedError{Method: method, Err: reason, Detail: detail}
	s.cfg.Logger.Warn("agent link refused", "method", method, "reason", reason.Error(), "detail", detail, "pid", s.pid)
	if s.cfg.Refused != nil {
		s.cfg.Refused(e)
	}
	return status.Error(code, e.Error())
}

// verifyPeer checks the credentials of the link's first bytes.
func (s *Server) verifyPeer(a PeerAddr) error {
	if a.Pid != s.pid || a.Uid != s.uid {
		e := &RefusedError{Method: "handshake", Err: ErrPeer, Detail: fmt.Sprintf("%v, want pid %d uid %d", a, s.pid, s.uid)}
		s.cfg.Logger.Warn("agent link refused", "method", e.Method, "reason", e.Err.Error(), "detail", e.Detail)
		if s.cfg.Refused != nil {
			s.cfg.Refused(e)
		}
		return e
	}
	return nil
}

// authorize checks every call: the connection's verified peer and the
// token in its metadata, compared in constant time.
func (s *Server) authorize(ctx context.Context, method string) error {
	pr, ok := peer.FromContext(ctx)
	var a PeerAddr
	if ok {
		a, ok = pr.Addr.(PeerAddr)
	}
	if !ok || a.Pid != s.pid || a.Uid != s.uid {
		return s.refuse(codes.PermissionDenied, method, ErrPeer, "the call did not come over the verified link")
	}
	md, _ := metadata.FromIncomingContext(ctx)
	got := md.Get(tokenKey)
	if len(got) != 1 || !s.tokenOK(got[0]) {
		return s.refuse(codes.Unauthenticated, method, ErrToken, fmt.Sprintf("%d token values", len(got)))
	}
	return nil
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) unaryGuard(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := s.authorize(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (s *Server) streamGuard(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := s.authorize(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	if info.FullMethod != parallaxv1.AgentService_Connect_FullMethodName {
		return handler(srv, ss)
	}
	if !s.connected.CompareAndSwap(false, true) {
		return s.refuse(codes.AlreadyExists, info.FullMethod, ErrSecondStream, "one Connect stream per agent process")
	}
	hs := &helloStream{ServerStream: ss, s: s}
	err := handler(srv, hs)
	if herr := hs.refusal(); herr != nil {
		return herr // whatever the handler made of it
	}
	return err
}

// helloStream holds the Connect stream until the agent's Hello checks
// out: the first received message must be it, and nothing is sent before.
type helloStream struct {
	grpc.ServerStream
	s *Server

	mu       sync.Mutex
	verified atomic.Bool
	err      error
}

func (h *helloStream) refusal() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (h *helloStream) RecvMsg(m any) error {
	if h.verified.Load() {
		return h.ServerStream.RecvMsg(m)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return h.err
	}
	if err := h.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	msg, _ := m.(*parallaxv1.AgentMessage)
	if h.err = h.s.checkHello(msg.GetHello()); h.err != nil {
		return h.err
	}
	h.verified.Store(true)
	return nil
}

func (h *helloStream) SendMsg(m any) error {
	if !h.verified.Load() {
		return status.Error(codes.FailedPrecondition, "agentlink: nothing is sent before the agent's hello is verified")
	}
	return h.ServerStream.SendMsg(m)
}

func (s *Server) checkHello(h *parallaxv1.Hello) error {
	const method = parallaxv1.AgentService_Connect_FullMethodName
	switch {
	case h == nil:
		return s.refuse(codes.InvalidArgument, method, ErrHello, "the first message is not hello")
	case h.GetProtocolVersion() != parallaxv1.ProtocolVersion:
		return s.refuse(codes.FailedPrecondition, method, ErrVersion,
			fmt.Sprintf("agent speaks %d, engine speaks %d", h.GetProtocolVersion(), parallaxv1.ProtocolVersion))
	case !s.tokenOK(h.GetToken()):
		return s.refuse(codes.Unauthenticated, method, ErrToken, "hello token")
	case h.GetPid() != int64(s.pid):
		return s.refuse(codes.PermissionDenied, method, ErrPeer, fmt.Sprintf("hello pid %d, spawned pid %d", h.GetPid(), s.pid))
	}
	return nil
}
