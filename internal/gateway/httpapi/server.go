package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Limits and timeouts used when Config leaves them zero.
const (
	DefaultAddr           = "127.0.0.1:7420"
	DefaultMaxBodyBytes   = 2 << 20
	DefaultMaxBatch       = 256
	DefaultRequestTimeout = 10 * time.Second
	DefaultShutdownGrace  = 10 * time.Second

	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 32 << 10
	maxIDBytes        = 256
)

// Gate is what the server needs from shield.Gate.
type Gate interface {
	Evaluate(ctx context.Context, r shield.Request) verdict.Verdict
	Observe(ctx context.Context, r shield.Request) error
}

var _ Gate = (*shield.Gate)(nil)

// Sessions reads session state (*store.DB).
type Sessions interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	TaintOf(ctx context.Context, session string) (int, string, error)
	Taints(ctx context.Context, session string) ([]store.Taint, error)
}

var _ Sessions = (*store.DB)(nil)

// Tainter raises a session's taint (the workspace's ifc.Store).
type Tainter interface {
	RaiseTaint(ctx context.Context, session string, level ifc.Level, source string) error
}

var _ Tainter = ifc.Store(nil)

// Config wires a server. Gate, Sessions and Token are required.
type Config struct {
	Gate     Gate
	Sessions Sessions
	// Tainter marks a session whose tool result could not be recorded
	// (serve passes the gate, which keeps a mark it cannot write until it
	// can); nil leaves that to the client.
	Tainter Tainter
	// Audit records failures the gate did not see (a result that could
	// not be recorded); nil records nothing.
	Audit shield.Appender
	// Token is the bearer token (64 hex characters).
	Token []byte
	// Approvals, when set, receives the answers of the approval webhook at
	// POST /v1/approvals/webhook (its HMAC signature is its
	// authentication: no bearer token there).
	Approvals http.Handler
	// AuditChain, when set, is what was verified of the audit chain at
	// start (serve refuses to start on a broken one); /healthz reports it.
	AuditChain string
	// Logger receives one structured line per request; nil discards.
	Logger *slog.Logger
	// Now is the clock of durations in logs and metrics (default time.Now).
	Now func() time.Time

	// Health are the parts GET /healthz checks (the audit chain, the
	// store, …): 503 naming the parts that fail, 200 when none does.
	Health []HealthCheck

	MaxBodyBytes   int64         // default DefaultMaxBodyBytes
	MaxBatch       int           // default DefaultMaxBatch
	RequestTimeout time.Duration // default DefaultRequestTimeout
	ShutdownGrace  time.Duration // default DefaultShutdownGrace
}

// HealthCheck is one part /healthz checks. Check returns nil while the
// part works; the answer names the part, never the error (/healthz needs
// no token), which goes to the log.
type HealthCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Server is the HTTP API. It is safe for concurrent use.
type Server struct {
	cfg     Config
	auth    *authenticator
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics
	handler http.Handler

	mu      sync.Mutex
	active  int
	closing bool
	idle    *sync.Cond
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Gate == nil || cfg.Sessions == nil {
		return nil, errors.New("new http api: a gate and a session store are required")
	}
	auth, err := newAuthenticator(cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("new http api: %w", err)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	s := &Server{cfg: cfg, auth: auth, log: cfg.Logger, now: cfg.Now, metrics: newMetrics()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.idle = sync.NewCond(&s.mu)
	s.handler = s.routes()
	return s, nil
}

// Handler is the API as an http.Handler (tests, embedding).
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/evaluate", s.authed(s.evaluate))
	mux.Handle("POST /v1/observe", s.authed(s.observe))
	mux.Handle("GET /v1/sessions/{id}", s.authed(s.session))
	mux.Handle("GET /metrics", s.authed(s.serveMetrics))
	mux.HandleFunc("GET /healthz", s.healthz)
	if s.cfg.Approvals != nil {
		mux.Handle("POST /v1/approvals/webhook", s.cfg.Approvals)
	}
	return s.instrument(mux)
}

// Serve serves on ln until ctx ends, then shuts down: it stops accepting,
// lets requests in flight finish for up to ShutdownGrace, then closes
// what is left (their contexts are cancelled, so the gate blocks what
// they were evaluating) and returns once every handler has returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      s.cfg.RequestTimeout + readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.drain()
		return fmt.Errorf("serve http api on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "grace", s.cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		s.log.Warn("grace period over; closing the connections left", "error", err.Error())
		err = srv.Close()
	}
	s.drain()
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("shut down http api: %w", err)
	}
	return nil
}

// enter counts a handler in; it is false once the server is draining.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.active++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.active--
	if s.active == 0 {
		s.idle.Broadcast()
	}
	s.mu.Unlock()
}

// drain refuses new handlers and waits for the running ones.
func (s *Server) drain() {
	s.mu.Lock()
	s.closing = true
	for s.active > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

// CheckAddr checks a listen address: a loopback host (127.0.0.0/8, ::1,
// localhost) is always fine; any other host, or none (every interface),
// needs allowRemote. It reports whether the address is remote.
func CheckAddr(addr string, allowRemote bool) (remote bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if port == "" {
		return false, fmt.Errorf("listen address %q: no port", addr)
	}
	if host == "localhost" {
		return false, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return false, nil
	}
	if !allowRemote {
		return true, fmt.Errorf("listen address %q is not loopback: any host that reaches it could use the gate's API; pass --allow-remote to bind it anyway", addr)
	}
	return true, nil
}

// Listen checks addr with CheckAddr and listens on it. A loopback address
// must also be bound to a loopback IP ("localhost" is resolved by the
// system): anything else is closed and refused.
func Listen(ctx context.Context, addr string, allowRemote bool) (ln net.Listener, remote bool, err error) {
	if remote, err = CheckAddr(addr, allowRemote); err != nil {
		return nil, remote, err
	}
	var lc net.ListenConfig
	if ln, err = lc.Listen(ctx, "tcp", addr); err != nil {
		return nil, remote, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !remote && (!ok || !tcp.IP.IsLoopback()) {
		bound := ln.Addr().String()
		return nil, remote, errors.Join(fmt.Errorf("listen on %s: bound to %s, which is not loopback", addr, bound), ln.Close())
	}
	return ln, remote, nil
}

// auditFailure records, best effort, an error the gate did not record.
// The audit chain redacts msg.
func (s *Server) auditFailure(ctx context.Context, session, typ, code, msg string) {
	if s.cfg.Audit == nil {
		return
	}
	e := audit.Event{Type: audit.ShieldError, Session: session, ActionType: typ,
		Detail: audit.Detail{Code: code, Message: msg}}
	if _, err := s.cfg.Audit.Append(context.WithoutCancel(ctx), e); err != nil {
		s.log.Error("audit append failed", "code", code, "session", session, "error", err.Error())
	}
}
