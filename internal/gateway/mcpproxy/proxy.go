package mcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// Version is what the proxy reports as its client version to servers.
const Version = "0.1.0"

// UpstreamProtocol is the protocol version the proxy asks servers for:
// the initialize handshake every server of the last two years speaks.
const UpstreamProtocol = "2025-11-25"

// maxTools bounds how many tools one server may list.
const maxTools = 4096

// Gate is what the proxy needs of shield.Gate.
type Gate interface {
	Evaluate(ctx context.Context, r shield.Request) verdict.Verdict
	Observe(ctx context.Context, r shield.Request) error
}

var _ Gate = (*shield.Gate)(nil)

// Config says what the proxy protects and with what.
type Config struct {
	Gate Gate
	// Audit receives the proxy's own events (pins, approvals, withheld
	// results); the gate writes its verdicts itself. Nil records nothing.
	Audit shield.Appender
	// Pins keeps tool pins; nil keeps them in memory for this process.
	Pins PinStore
	// Approver is tier 3 (*approval.Broker): escalations are asked of a
	// human there. Nil means there is no approval channel, and
	// escalations are blocked. The Gate itself must have none: the proxy
	// asks, after --trust-tool.
	Approver Broker
	// NoApproval says why there is no Approver, for reasons (for
	// instance " (no terminal: …)"); empty says nothing.
	NoApproval string
	// TrustTools are tool names whose escalations are approved in
	// advance (a human's standing decision, audited per call). A BLOCK is
	// never overridden.
	TrustTools []string
	// ServerID names the server in pins, audit and mcp_call (see
	// ServerID and CheckServerID).
	ServerID string
	// Command is the server command line, shown in pins.json (redacted).
	Command string
	// Session is the gate session of this proxy process.
	Session string
	// Workspace is the gate's workspace; Dir is the server's working
	// directory (its commands run there); Home is what ~ means to the
	// gate. All absolute.
	Workspace, Dir, Home string
	// Roots is how the server resolves relative path arguments (LearnRoots,
	// ExplicitRoots); with none, a relative path is refused.
	Roots Roots
	// ServerHome is what ~ means to the server (its HOME; default Home).
	ServerHome string
	// Chronicle, when set, is the workspace whose Chronicle snapshots
	// what an allowed call writes, edits, moves or deletes inside it
	// before the call is forwarded; a snapshot that fails refuses the
	// call. Nil takes none (no workspace).
	Chronicle *workspace.Workspace
	// ChronicleOptions tune those snapshots (zero: Chronicle's defaults).
	ChronicleOptions chronicle.Options
	// DLP screens results; nil uses dlp.New().
	DLP *dlp.Detector
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives operator messages (pins, flags); nil discards them.
	// Stdout is the MCP transport: never log there.
	Logger *slog.Logger
}

// Proxy sits between an MCP client and one MCP server.
type Proxy struct {
	cfg Config
	dlp *dlp.Detector
	log *slog.Logger

	server *mcp.Server
	cs     *mcp.ClientSession // set before ready closes
	ss     *mcp.ServerSession // the client's session, set before ready closes
	ready  chan struct{}      // closed once cs is set
	up     mcp.Transport
	upOnce sync.Once
	upDone chan struct{} // closed once the server is connected or failed
	upErr  error
	runCtx context.Context
	bgMu   sync.Mutex
	bg     sync.WaitGroup
	ended  bool // no more background work once Run is ending

	syncMu  sync.Mutex
	mu      sync.Mutex
	tools   map[string]*toolState
	removed map[string]bool // removals already reported
}

// toolState is what the proxy serves for one tool.
type toolState struct {
	def    *mcp.Tool
	hash   string
	held   bool
	reason string // why calls are blocked, when held
}

// New checks the configuration.
func New(cfg Config) (*Proxy, error) {
	if cfg.Gate == nil {
		return nil, errors.New("mcp proxy: no gate")
	}
	if err := CheckServerID(cfg.ServerID); err != nil {
		return nil, fmt.Errorf("mcp proxy: %w", err)
	}
	if cfg.Session == "" {
		return nil, errors.New("mcp proxy: no session id")
	}
	if !filepath.IsAbs(cfg.Workspace) || !filepath.IsAbs(cfg.Dir) || !filepath.IsAbs(cfg.Home) {
		return nil, fmt.Errorf("mcp proxy: workspace %q, server directory %q and home %q must be absolute",
			cfg.Workspace, cfg.Dir, cfg.Home)
	}
	p := &Proxy{cfg: cfg, dlp: cfg.DLP, log: cfg.Logger, ready: make(chan struct{}),
		tools: map[string]*toolState{}, removed: map[string]bool{}}
	if p.dlp == nil {
		d, err := dlp.New()
		if err != nil {
			return nil, fmt.Errorf("mcp proxy: load dlp: %w", err)
		}
		p.dlp = d
	}
	if p.cfg.Pins == nil {
		p.cfg.Pins = NewMemoryPins()
	}
	if p.cfg.Now == nil {
		p.cfg.Now = time.Now
	}
	if p.cfg.ServerHome == "" {
		p.cfg.ServerHome = p.cfg.Home
	}
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return p, nil
}

// Run serves the client on down; when the client initializes, it
// connects to the server over up, offering it what the client offers
// (sampling; never roots or elicitation) and offering the client what
// the server offers (tools, resources, prompts, completion, logging). It
// runs until either side closes or ctx is done. The client closing and
// ctx ending are normal ends (nil, unless the server could not be shut
// down); the server going away first is an error, as is a server that
// cannot be connected. Run may be called once.
func (p *Proxy) Run(ctx context.Context, down, up mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	p.runCtx = ctx
	defer func() {
		// Background re-listing ends with Run.
		cancel()
		p.bgMu.Lock()
		p.ended = true
		p.bgMu.Unlock()
		p.bg.Wait()
	}()
	p.up, p.upDone = up, make(chan struct{})
	p.server = p.newServer()
	ss, err := p.server.Connect(ctx, down, nil)
	if err != nil {
		return fmt.Errorf("serve MCP client: %w", err)
	}
	clientDone, serverDone := make(chan error, 1), make(chan error, 1)
	go func() { clientDone <- ss.Wait() }()
	select {
	case <-p.upDone:
	case <-clientDone:
		// Gone before the server was connected.
		return p.abandon(cancel, nil)
	case <-ctx.Done():
		return p.abandon(cancel, ss.Close())
	}
	if p.upErr != nil {
		return errors.Join(fmt.Errorf("mcp proxy for %s: %w", p.cfg.ServerID, p.upErr), ss.Close(), p.closeUpstream())
	}
	cs := p.cs
	p.event(ctx, audit.SessionStarted, "mcp_proxy_started", "MCP proxy for server "+p.cfg.ServerID, nil)
	go func() { serverDone <- cs.Wait() }()
	var runErr error
	select {
	case <-clientDone:
		runErr = cs.Close()
	case err := <-serverDone:
		runErr = fmt.Errorf("MCP server %s closed the connection", p.cfg.ServerID)
		if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
			runErr = fmt.Errorf("%w: %v", runErr, redactErr(p.dlp, err))
		}
		// The server may have closed its output and kept running:
		// closing the connection ends its process (group).
		_ = ss.Close()
		_ = cs.Close()
	case <-ctx.Done():
		// Told to stop (a signal, in the CLI): a normal end, once the
		// server is shut down.
		runErr = errors.Join(ss.Close(), cs.Close())
	}
	p.event(context.WithoutCancel(ctx), audit.SessionEnded, "mcp_proxy_ended", "MCP proxy for server "+p.cfg.ServerID, nil)
	return runErr
}

// connectUpstream connects to the server when the client initializes
// (or discovers, or sends its first request in the sessionless protocol),
// offering the server what the client offers, and reads its tools. It
// runs once; its outcome is in p.cs and p.upErr when p.upDone closes.
func (p *Proxy) connectUpstream(ss *mcp.ServerSession, offered *mcp.ClientCapabilities) error {
	p.upOnce.Do(func() {
		defer close(p.upDone)
		p.ss = ss
		cs, err := p.upstreamClient(offered).Connect(p.runCtx, p.up, &mcp.ClientSessionOptions{ProtocolVersion: UpstreamProtocol})
		if err != nil {
			p.upErr = fmt.Errorf("connect to MCP server %s: %w", p.cfg.ServerID, err)
			return
		}
		p.cs = cs
		close(p.ready)
		if err := p.sync(p.runCtx); err != nil {
			p.upErr = err
		}
	})
	return p.upErr
}

// abandon ends a Run whose client went away (or whose ctx ended) before
// the server was connected: a connection under way is cancelled and
// waited for, no later one can start, and a connected server is closed
// (its process ended), so nothing is left running.
func (p *Proxy) abandon(cancel context.CancelFunc, err error) error {
	cancel()
	p.upOnce.Do(func() { close(p.upDone) })
	return errors.Join(err, p.closeUpstream())
}

// closeUpstream closes the server connection if there is one.
func (p *Proxy) closeUpstream() error {
	select {
	case <-p.ready:
		return p.cs.Close()
	default:
		return nil
	}
}

// newServer builds the server the client talks to. What it offers is
// decided when the client initializes (initialize), from the server's
// capabilities; everything is forwarded through forward.
func (p *Proxy) newServer() *mcp.Server {
	impl := &mcp.Implementation{Name: p.cfg.ServerID, Version: Version}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{
		// The widest set, so that the SDK sends list-changed
		// notifications; the client is told what the server offers.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			//lint:ignore SA1019 logging is deprecated (SEP-2577) but still relayed during its deprecation window
			Completions: &mcp.CompletionCapabilities{}, Logging: &mcp.LoggingCapabilities{}},
		CompletionHandler:  p.complete,
		SubscribeHandler:   p.subscribe,
		UnsubscribeHandler: p.unsubscribe,
	})
	srv.AddReceivingMiddleware(p.forward)
	return srv
}

// initialize connects the server, then answers the client with the
// server's identity, its instructions and the capabilities both sides
// have (see present).
func (p *Proxy) initialize(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if err := p.connectUpstream(ss, offeredBy(req)); err != nil {
		return nil, fmt.Errorf("parallax: the MCP server could not be started: %s", redactErr(p.dlp, err))
	}
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	init := p.cs.InitializeResult()
	if init == nil {
		return res, nil
	}
	switch r := res.(type) {
	case *mcp.InitializeResult:
		if init.ServerInfo != nil {
			r.ServerInfo = &mcp.Implementation{Name: init.ServerInfo.Name, Title: init.ServerInfo.Title, Version: init.ServerInfo.Version}
		}
		r.Instructions, r.Capabilities = p.instructions(ctx, init.Instructions), mirrorServer(init.Capabilities)
	case *mcp.DiscoverResult:
		r.Instructions, r.Capabilities = p.instructions(ctx, init.Instructions), mirrorServer(init.Capabilities)
	}
	return res, nil
}

// offeredBy is what the client offers in an initialize or discover
// request; nil (nothing) for any other first request.
func offeredBy(req mcp.Request) *mcp.ClientCapabilities {
	switch r := req.(type) {
	case *mcp.ServerRequest[*mcp.InitializeParams]:
		if r.Params != nil {
			return r.Params.Capabilities
		}
	case *mcp.ServerRequest[*mcp.DiscoverParams]:
		return r.ClientCapabilities()
	}
	return nil
}

// instructions are the server's instructions, dropped when they read as
// orders to the agent.
func (p *Proxy) instructions(ctx context.Context, text string) string {
	if rules := ScanInjection(text, ScopeDescription); len(rules) > 0 {
		p.log.Warn("mcp proxy: server instructions read as orders to the agent; dropped", "server", p.cfg.ServerID, "rules", rules)
		p.event(ctx, audit.IntegrityViolation, "mcp_instructions_poisoned", "server "+p.cfg.ServerID+" instructions dropped", rules)
		return ""
	}
	return text
}

// resync re-reads the server's tools after it announced a change.
func (p *Proxy) resync() {
	p.bgMu.Lock()
	defer p.bgMu.Unlock()
	if p.ended {
		return
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		select {
		case <-p.ready:
		case <-p.runCtx.Done():
			return
		}
		if err := p.sync(p.runCtx); err != nil && p.runCtx.Err() == nil {
			p.log.Error("mcp proxy: re-reading tools failed; every tool is held", "server", p.cfg.ServerID, "error", err)
		}
	}()
}

// sync lists the server's tools, checks them against the pins and
// updates what the client is served. On any error every tool is held.
func (p *Proxy) sync(ctx context.Context) error {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	states, events, err := p.verify(ctx)
	if err != nil {
		p.holdAll("tool definitions could not be checked against the pins (" + redactErr(p.dlp, err) + ")")
		return err
	}
	p.apply(states)
	p.report(ctx, events)
	return nil
}

// verify lists the tools and decides each against the pins.
func (p *Proxy) verify(ctx context.Context) (map[string]*toolState, []pinEvent, error) {
	var seen []observed
	if init := p.cs.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Tools != nil {
		for t, err := range p.cs.Tools(ctx, nil) {
			if err != nil {
				return nil, nil, fmt.Errorf("list tools: %w", err)
			}
			if len(seen) >= maxTools {
				return nil, nil, fmt.Errorf("list tools: more than %d tools", maxTools)
			}
			if slices.ContainsFunc(seen, func(o observed) bool { return o.tool.Name == t.Name }) {
				return nil, nil, fmt.Errorf("list tools: tool %q listed twice", t.Name)
			}
			if !toolNamePattern().MatchString(t.Name) {
				// Names reach reasons, suggested commands and pins: only
				// the names the MCP specification allows are served.
				p.refuseName(ctx, t.Name)
				continue
			}
			o, err := newObserved(t)
			if err != nil {
				return nil, nil, err
			}
			seen = append(seen, o)
		}
	}
	var states map[string]*toolState
	var events []pinEvent
	var name, version string
	info := false
	if init := p.cs.InitializeResult(); init != nil && init.ServerInfo != nil {
		name, version, info = trimTo(init.ServerInfo.Name, 128), trimTo(init.ServerInfo.Version, 64), true
	}
	all, err := p.cfg.Pins.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	others := shadowed(all, p.cfg.ServerID, name)
	err = p.cfg.Pins.Update(ctx, p.cfg.ServerID, func(sp *ServerPins) error {
		if info {
			sp.Name, sp.ServerVersion = name, version
		}
		markShadowing(seen, sp, others)

		if p.cfg.Command != "" {
			cmd, _ := p.dlp.Redact(p.cfg.Command)
			sp.Command = trimTo(cmd, 1024)
		}
		states, events = decide(sp, seen, p.cfg.Now().UTC(), p.cfg.ServerID)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return states, events, nil
}

// toolNamePattern is what the MCP specification allows a tool name to be.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// refuseName reports, once per process, a tool the server named outside
// the specification; it is not served.
func (p *Proxy) refuseName(ctx context.Context, name string) {
	key := "\x00name:" + name
	if p.removed[key] {
		return
	}
	p.removed[key] = true
	shown := fmt.Sprintf("%q", trimTo(name, 64))
	p.log.Warn("mcp proxy: tool with an invalid name not served", "server", p.cfg.ServerID, "tool", shown)
	p.event(ctx, audit.IntegrityViolation, "mcp_tool_bad_name", "tool "+shown+" on server "+p.cfg.ServerID+" not served", nil)
}

// apply registers what changed with the client-facing server (which tells
// the client the list changed) and removes what is gone.
func (p *Proxy) apply(states map[string]*toolState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var gone []string
	for name := range p.tools {
		if _, ok := states[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		p.server.RemoveTools(gone...)
		for _, n := range gone {
			delete(p.tools, n)
		}
	}
	for name, st := range states {
		cur := p.tools[name]
		if cur != nil && cur.hash == st.hash && cur.held == st.held && cur.reason == st.reason {
			continue
		}
		p.register(name, st)
	}
}

// register serves st under name; a definition the SDK refuses is held.
func (p *Proxy) register(name string, st *toolState) {
	defer func() {
		if r := recover(); r != nil {
			held := &toolState{def: st.def, hash: st.hash, held: true,
				reason: fmt.Sprintf("tool %q has a definition the proxy cannot serve", name)}
			p.server.AddTool(placeholder(name, held.reason), p.handler(name))
			p.tools[name] = held
		}
	}()
	def := st.def
	if st.held {
		def = placeholder(name, st.reason)
	}
	p.server.AddTool(def, p.handler(name))
	p.tools[name] = st
}

// holdAll marks every served tool held with reason.
func (p *Proxy) holdAll(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, st := range p.tools {
		if !st.held || st.reason != reason {
			p.register(name, &toolState{def: st.def, hash: st.hash, held: true, reason: reason})
		}
	}
}

// placeholder is what the client sees of a held tool: no word of the
// held definition reaches the agent.
func placeholder(name, reason string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: "Held by Parallax: " + reason,
		InputSchema: map[string]any{"type": "object"}}
}

func (p *Proxy) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return p.call(ctx, name, req)
	}
}

// state returns a copy of the served state of a tool.
func (p *Proxy) state(name string) (toolState, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.tools[name]
	if !ok {
		return toolState{}, false
	}
	return *st, true
}

// report audits and logs pin events. A removal is reported once per
// process.
func (p *Proxy) report(ctx context.Context, events []pinEvent) {
	for _, e := range events {
		if e.kind == "removed" {
			if p.removed[e.tool] {
				continue
			}
			p.removed[e.tool] = true
		} else {
			delete(p.removed, e.tool)
		}
		msg := fmt.Sprintf("tool %s on server %s %s", e.tool, p.cfg.ServerID, e.kind)
		switch e.kind {
		case "changed", "poisoned":
			p.log.Warn("mcp proxy: "+msg+"; held until approved", "approve",
				fmt.Sprintf("parallax mcp pins approve %s %s", p.cfg.ServerID, e.tool), "rules", e.rules)
			p.event(ctx, audit.IntegrityViolation, "mcp_tool_"+e.kind, msg, e.rules)
		default:
			p.log.Info("mcp proxy: " + msg)
			p.event(ctx, audit.ConfigChanged, "mcp_tool_"+e.kind, msg, nil)
		}
	}
}

// event appends one of the proxy's own entries to the audit chain.
func (p *Proxy) event(ctx context.Context, t audit.EventType, code, msg string, labels []string) {
	if err := p.appendAudit(ctx, audit.Event{Type: t, Session: p.cfg.Session,
		Detail: audit.Detail{Code: code, Message: msg, Ref: p.cfg.ServerID, Labels: labels}}); err != nil {
		p.log.Error("mcp proxy: audit", "code", code, "error", err)
	}
}

func (p *Proxy) appendAudit(ctx context.Context, e audit.Event) error {
	if p.cfg.Audit == nil {
		return nil
	}
	_, err := p.cfg.Audit.Append(context.WithoutCancel(ctx), e)
	return err
}

// redactErr is err's message with what DLP finds masked.
func redactErr(d *dlp.Detector, err error) string {
	s, _ := d.Redact(err.Error())
	return trimTo(s, 400)
}
