package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/internal/gateway/httpapi"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
)

// serveOptions are the flags of parallax serve.
type serveOptions struct {
	workspace, home, addr, logLevel string
	allowRemote                     bool
	maxBody                         int64
	timeout, grace                  time.Duration
	chain                           string // what was verified of the audit chain at start
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the gate over HTTP for agents and frameworks (loopback by default)",
		Long: `Serves the gate of an initialised workspace over HTTP, on 127.0.0.1:7420
unless --addr says otherwise. Every route but /healthz needs the header
"Authorization: Bearer <token>", where the token is the content of
.parallax/api.token (created by parallax init, mode 0600).

  POST /v1/evaluate       {"id","session","parent","type","payload","result"}
                          or {"requests":[…]} (at most 256) → verdict(s), in order
  POST /v1/observe        {"session","parent","type","payload","result"} → 204;
                          the result is classified and taints the session
  GET  /v1/sessions/{id}  the session's taint level, source, records, parent
  GET  /healthz           200 (with what was verified of the audit chain at
                          start, audit_chain), or 503 naming what cannot be
                          written (audit, store, taint) while decisions are
                          blocked (no token)
  GET  /metrics           Prometheus text exposition (token required)

Before it listens, serve verifies the whole audit chain (every entry, the
head): on a broken chain it refuses to start, naming the first bad entry,
rather than append to a history that cannot be trusted (parallax doctor
says what to do).

A verdict is the line parallax shield evaluate writes, plus the request's
"id". Clients must run an action only on a 200 with decision ALLOW. Bodies
are decoded strictly (an unknown field is a 400 naming it), at most
--max-body bytes (413 beyond). Decisions go to the workspace's audit chain
before they are answered; session state lives in the workspace database,
shared with hooks and shield evaluate. A tool result /v1/observe cannot
record taints its session critical (source observe_failed).

Logs are JSON lines on stderr, one per request (method, route, status,
duration, session, id, decision, stage, rule), never payloads, results,
reasons or the token. SIGINT or SIGTERM stops accepting, drains what is in
flight (up to --grace), then closes the workspace; a second signal exits
at once.

A non-loopback --addr needs --allow-remote: the token is then the only
thing between the network and the gate, and it travels in clear text.`,
		Example: `  parallax serve --workspace ~/project
  curl -s -H "Authorization: Bearer $(cat ~/project/.parallax/api.token)" \
    -H 'Content-Type: application/json' \
    -d '{"id":"1","session":"s1","type":"read_file","payload":{"path":"~/project/README.md"}}' \
    http://127.0.0.1:7420/v1/evaluate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			shield.LongRunning()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop() // a second signal ends the process the default way
			}()
			return runServe(ctx, o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.workspace, "workspace", "", "workspace root (default: the workspace at or above the current directory); must be initialised")
	f.StringVar(&o.home, "home", "", "what ~ means (default: $HOME)")
	f.StringVar(&o.addr, "addr", httpapi.DefaultAddr, "listen address (host:port); port 0 picks a free one")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback --addr")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info (one line per request), warn or error")
	f.Int64Var(&o.maxBody, "max-body", httpapi.DefaultMaxBodyBytes, "largest request body in bytes")
	f.DurationVar(&o.timeout, "timeout", httpapi.DefaultRequestTimeout, "deadline of one request")
	f.DurationVar(&o.grace, "grace", httpapi.DefaultShutdownGrace, "how long shutdown waits for requests in flight")
	return cmd
}

// runServe serves until ctx ends, then closes the workspace.
func runServe(ctx context.Context, o serveOptions, stderr io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	if _, err := httpapi.CheckAddr(o.addr, o.allowRemote); err != nil {
		return err // before anything is opened
	}
	cfg, err := gateConfig(stderr, o.workspace, o.home, "")
	if err != nil {
		return err
	}
	if !pxworkspace.Initialised(cfg.Workspace) {
		return fmt.Errorf("serve %s: %w", cfg.Workspace, pxworkspace.ErrNotInitialised)
	}
	token, err := httpapi.LoadToken(httpapi.TokenPath(cfg.Workspace))
	if err != nil {
		return err
	}
	rep, err := pxworkspace.VerifyChain(cfg.Workspace)
	if err != nil {
		return fmt.Errorf("serve %s: %w", cfg.Workspace, err)
	}
	o.chain = pxworkspace.ChainStatus(rep)
	ws, err := pxworkspace.Open(ctx, cfg.Workspace)
	if err != nil {
		return err
	}
	err = serveWorkspace(ctx, ws, cfg.Home, token, o, log)
	if cerr := ws.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("close workspace %s: %w", ws.Root, cerr))
	}
	if err == nil {
		log.Info("stopped; audit chain flushed", "workspace", ws.Root)
	}
	return err
}

// approvalWait is how long a request may wait for a human.
func approvalWait(ws *pxworkspace.Workspace) time.Duration {
	if a := ws.Config.Approval; a != nil && a.Timeout.Duration > 0 {
		return a.Timeout.Duration
	}
	return approval.DefaultTimeout
}

func serveWorkspace(ctx context.Context, ws *pxworkspace.Workspace, home string, token []byte,
	o serveOptions, log *slog.Logger) error {
	gcfg := ws.GateConfig(home)
	broker, hook, err := ws.Approver()
	if err != nil {
		return fmt.Errorf("serve %s: %w", ws.Root, err)
	}
	var answers http.Handler
	if broker != nil {
		defer broker.Close()
		gcfg.Approver = pxworkspace.GateApprover(broker)
		if o.timeout < approvalWait(ws) {
			// A request waiting for a human must not be cut short.
			o.timeout = approvalWait(ws) + 10*time.Second
		}
	}
	if hook != nil {
		answers = hook.Handler()
	}
	gate, err := shield.New(gcfg)
	if err != nil {
		return fmt.Errorf("serve %s: %w", ws.Root, err)
	}
	srv, err := httpapi.New(httpapi.Config{Gate: gate, Sessions: ws.DB, Tainter: gate, Audit: ws.Audit,
		Token: token, Logger: log, MaxBodyBytes: o.maxBody, RequestTimeout: o.timeout, ShutdownGrace: o.grace,
		Approvals: answers, AuditChain: o.chain, Health: []httpapi.HealthCheck{
			{Name: "audit", Check: ws.Audit.Check}, {Name: "store", Check: ws.DB.Check}, {Name: "taint", Check: gate.CheckTaint}}})
	if err != nil {
		return err
	}
	ln, remote, err := httpapi.Listen(ctx, o.addr, o.allowRemote)
	if err != nil {
		return err
	}
	if remote {
		log.Warn("listening on a non-loopback address: any host that reaches it can use the gate with the token, which travels unencrypted",
			"addr", ln.Addr().String())
	}
	log.Info("listening", "addr", ln.Addr().String(), "workspace", ws.Root, "policy", ws.Config.Policy, "audit_chain", o.chain)
	return srv.Serve(ctx, ln)
}
