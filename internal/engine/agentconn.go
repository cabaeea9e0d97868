package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/approval"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/toolgroup"
	"github.com/parallax/parallax/internal/wire"
	"github.com/parallax/parallax/llm"
	pb "github.com/parallax/parallax/proto/parallax/v1"
	"github.com/parallax/parallax/sandbox"
	"github.com/parallax/parallax/verdict"
)

// Reason codes of the runtime's own refusals.
const (
	RuleOTRReadOnly    = "otr_read_only"
	RuleUnknownSession = "unknown_session"
	RuleSandboxReport  = "agent_sandbox_failed"
	RuleSharedTaint    = "shared_taint_error"
	// OTRUsageSession is the name off-the-record sessions' model usage is
	// recorded under.
	OTRUsageSession = "off-the-record"
)

// agentConn serves one agent process's Connect stream.
type agentConn struct {
	pb.UnimplementedAgentServiceServer
	r       *Runtime
	pid     int
	spawned time.Time
	started time.Time // spawn, by the monotonic clock (measurements only)

	sendMu sync.Mutex
	st     pb.AgentService_ConnectServer

	mu       sync.Mutex
	ctx      context.Context
	cancel   context.CancelFunc
	reqs     map[string]context.CancelFunc
	seen     map[string]bool // sessions this agent process has had a message of
	refused  chan struct{}
	refuseMu sync.Once
	refusal  *SandboxRefusedError // set once, before refused is closed
	welcomed time.Time
	wg       sync.WaitGroup
}

var _ pb.AgentServiceServer = (*agentConn)(nil)

func newAgentConn(r *Runtime, pid int, spawned, mono time.Time) *agentConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &agentConn{r: r, pid: pid, spawned: spawned, started: mono, ctx: ctx, cancel: cancel,
		reqs: map[string]context.CancelFunc{}, seen: map[string]bool{}, refused: make(chan struct{})}
}

func (c *agentConn) send(m *pb.EngineMessage) error {
	m = wire.ValidText(m) // proto3 refuses invalid UTF-8: it would end the link
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.st == nil {
		return errors.New("the agent stream is not open")
	}
	return c.st.Send(m)
}

// close cancels the agent's work in the engine and waits for it.
func (c *agentConn) close() {
	c.cancel()
	c.wg.Wait()
}

func (c *agentConn) shutdown(reason string, grace time.Duration) {
	_ = c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_Shutdown{Shutdown: &pb.Shutdown{Reason: reason, GraceMs: uint32(grace.Milliseconds())}}})
}

// Connect is the agent's one stream: Hello (checked by agentlink), the
// sandbox report, Welcome, then proposals, model requests and turn events.
func (c *agentConn) Connect(st pb.AgentService_ConnectServer) error {
	// An agent that does not report its sandbox in time is stopped for
	// good: it is broken, or it is not the agent.
	late := time.AfterFunc(reportTimeout, func() {
		c.refuse(&SandboxRefusedError{Reason: fmt.Sprintf("no sandbox report within %v of the agent's start", reportTimeout)})
	})
	if _, err := st.Recv(); err != nil { // the Hello, verified by agentlink
		late.Stop()
		return err
	}
	m, err := st.Recv()
	if !late.Stop() {
		return errors.New("the sandbox report came too late")
	}
	if err != nil {
		return err
	}
	if err := c.r.checkSandbox(st.Context(), m.GetSandboxReport()); err != nil {
		c.refuse(err)
		return err
	}
	c.sendMu.Lock()
	c.st = st
	c.sendMu.Unlock()
	if err := c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_Welcome{Welcome: &pb.Welcome{
		ProtocolVersion: pb.ProtocolVersion, Config: c.r.agentConfig()}}}); err != nil {
		return err
	}
	c.welcomed = c.r.opts.Now()
	c.r.log.Info("agent ready", "pid", c.pid, "start_ms", c.welcomed.Sub(c.spawned).Milliseconds())
	if c.r.onWelcome != nil {
		c.r.onWelcome(time.Since(c.started))
	}
	c.r.setAgent(c)
	for {
		m, err := st.Recv()
		if err != nil {
			return nil // the agent went away; the supervisor sees how
		}
		c.dispatch(m)
	}
}

// reportTimeout bounds the wait for the agent's Hello and sandbox report.
const reportTimeout = 20 * time.Second

// firstOf reports whether this agent process has not yet had a message
// of session, and marks it.
func (c *agentConn) firstOf(session string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.seen[session]
	c.seen[session] = true
	return first
}

// refuse records why the agent is stopped for good, once.
func (c *agentConn) refuse(e *SandboxRefusedError) {
	c.refuseMu.Do(func() {
		c.mu.Lock()
		c.refusal = e
		c.mu.Unlock()
		close(c.refused)
	})
}

// refusedFor is why the agent was refused, nil when it was not.
func (c *agentConn) refusedFor() *SandboxRefusedError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refusal
}

func (c *agentConn) dispatch(m *pb.AgentMessage) {
	switch msg := m.GetMsg().(type) {
	case *pb.AgentMessage_ToolProposal:
		c.goWork(func(ctx context.Context) { c.r.propose(ctx, c, msg.ToolProposal) })
	case *pb.AgentMessage_LlmRequest:
		c.goWork(func(ctx context.Context) { c.r.serveLLM(ctx, c, msg.LlmRequest) })
	case *pb.AgentMessage_TextDelta:
		d := msg.TextDelta
		if !c.r.inFlight(d.GetTurnId(), d.GetSessionId(), "text delta") {
			return
		}
		c.r.hub.publish(&pb.Event{SessionId: d.GetSessionId(), Kind: &pb.Event_TextDelta{TextDelta: d}})
	case *pb.AgentMessage_TurnDone:
		c.r.turnDone(c.ctx, msg.TurnDone)
	case *pb.AgentMessage_Error:
		c.agentError(msg.Error)
	default:
		c.r.log.Warn("unexpected agent message", "type", fmt.Sprintf("%T", msg))
	}
}

func (c *agentConn) goWork(f func(ctx context.Context)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f(c.ctx)
	}()
}

func (c *agentConn) agentError(e *pb.AgentError) {
	if e.GetCode() == "llm_cancel" { // the agent gave up on a model request
		c.mu.Lock()
		if stop, ok := c.reqs[e.GetMessage()]; ok {
			stop()
		}
		c.mu.Unlock()
		return
	}
	if _, ok := c.r.endTurnOf(e.GetTurnId(), e.GetSessionId(), "error"); !ok {
		return
	}
	c.r.turnFailed(c.ctx, e.GetSessionId(), e.GetTurnId(), e.GetCode(), e.GetMessage())
}

// checkSandbox audits the agent's sandbox report and refuses a failed
// one: no report, a probe that was not refused, or no sandbox at all
// while agent.sandbox is on.
func (r *Runtime) checkSandbox(ctx context.Context, rep *pb.SandboxReport) *SandboxRefusedError {
	var problems []string
	switch {
	case rep == nil:
		problems = append(problems, "the agent sent no sandbox report")
	case rep.GetDisabled() && !r.settings.SandboxOff:
		problems = append(problems, "the agent runs without a sandbox but agent.sandbox is on")
	case !rep.GetDisabled() && (rep.GetLandlockAbi() == 0 || !rep.GetSeccomp()):
		problems = append(problems, fmt.Sprintf("landlock ABI %d, seccomp %v: both are required", rep.GetLandlockAbi(), rep.GetSeccomp()))
	}
	seen := map[string]bool{}
	for _, p := range rep.GetProbes() {
		seen[p.GetName()] = true
		if !p.GetRefused() {
			problems = append(problems, "probe "+p.GetName()+" was not refused: "+p.GetDetail())
		}
	}
	if rep != nil && !rep.GetDisabled() {
		for _, name := range sandbox.ProbeNames() {
			if !seen[name] {
				problems = append(problems, "probe "+name+" did not run")
			}
		}
	}
	e := audit.Event{Type: audit.SandboxCanaryResult, Decision: "ALLOW", Rule: "agent_sandbox_ok",
		Reason: fmt.Sprintf("landlock ABI %d, seccomp %v, %d probes refused", rep.GetLandlockAbi(), rep.GetSeccomp(), len(rep.GetProbes())),
		Detail: audit.Detail{Code: "sandbox_ok", Count: int64(len(rep.GetProbes()))}}
	if rep.GetDisabled() && len(problems) == 0 {
		e.Rule, e.Reason, e.Detail.Code = "agent_sandbox_off", "the agent runs without its sandbox (agent.sandbox: off)", "sandbox_off"
	}
	if len(problems) > 0 {
		e.Decision, e.Rule, e.Reason, e.Detail.Code = "BLOCK", RuleSandboxReport, strings.Join(problems, "; "), "sandbox_failed"
	}
	r.appendAudit(ctx, e)
	if len(problems) > 0 {
		return &SandboxRefusedError{Reason: strings.Join(problems, "; ")}
	}
	return nil
}

// agentConfig is the Welcome's configuration: limits, prompt files and
// skills read by the engine (the agent cannot read the workspace).
func (r *Runtime) agentConfig() *pb.AgentConfig {
	s := r.settings
	cfg := &pb.AgentConfig{Limits: &pb.Limits{MaxTurnSteps: uint32(s.MaxToolRounds), MaxContextTokens: uint32(s.ContextTokens),
		MaxOutputTokens: uint32(s.MaxResponseTokens), MaxMessageBytes: 16 << 20},
		CompactAt: s.CompactAt, Workspace: r.opts.Root, Today: r.opts.Now().UTC().Format(time.DateOnly)}
	for _, name := range []string{"SOUL.md", "IDENTITY.md", "USER.md", "AGENTS.md"} {
		if text, ok := r.boot.Files[name]; ok {
			cfg.PromptFiles = append(cfg.PromptFiles, &pb.PromptFile{Name: name, Content: text})
		}
	}
	for _, sk := range r.boot.Skills {
		cfg.Skills = append(cfg.Skills, &pb.SkillInfo{Name: sk.Name, Description: sk.Description, Source: sk.Source})
	}
	return cfg
}

// otrRefusal is the reason an off-the-record session is refused a tool
// that is not read-only (toolgroup.ReadOnly).
var otrRefusal = "this session is off the record: only " + andList(toolgroup.ReadOnlyTypes()) + " may run"

// andList joins types as English does: "a", "a and b", "a, b and c".
func andList(types []action.Type) string {
	var b strings.Builder
	for i, t := range types {
		switch {
		case i == 0:
		case i == len(types)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(t))
	}
	return b.String()
}

// propose runs one proposal: the session checks (known, OTR read-only)
// then the pipeline; the agent gets the verdict and the result, the
// clients see all three. Anything but the pipeline's ALLOW is a BLOCK.
func (r *Runtime) propose(ctx context.Context, c *agentConn, p *pb.ToolProposal) {
	if r.onProposal != nil {
		start := time.Now()
		defer func() { r.onProposal(time.Since(start)) }()
	}
	session, turn := p.GetSessionId(), r.turnOf(p.GetSessionId())
	info, err := r.sessions.Get(ctx, session)
	if err == nil {
		r.hub.mark(session, info.OTR)
	}
	r.hub.publish(&pb.Event{SessionId: session, Kind: &pb.Event_ToolProposed{ToolProposed: &pb.ToolProposed{TurnId: turn, Proposal: r.shown(p)}}})
	var out Outcome
	switch {
	case err != nil:
		out = r.refuseProposal(ctx, p, RuleUnknownSession, "the proposal names no session this engine runs")
	case info.OTR && !toolgroup.ReadOnly(action.Type(p.GetActionType())):
		out = r.refuseProposal(ctx, p, RuleOTRReadOnly, otrRefusal)
	case r.shareTaint(ctx, session) != nil:
		out = r.refuseProposal(ctx, p, RuleSharedTaint, "the taint the agent process carries from its other sessions could not be applied to this one; blocked to fail closed")
	default:
		out = r.pipe.Handle(ctx, Proposal{Session: session, CallID: p.GetCallId(), Type: p.GetActionType(), Payload: p.GetPayloadJson()})
		r.noteTaint(ctx, session)
	}
	allow := out.Verdict.Decision == verdict.Allow
	v := &pb.Verdict{CallId: p.GetCallId(), SessionId: session, Decision: pb.Decision_DECISION_BLOCK, ReasonCode: out.Verdict.Rule,
		Reason: out.Verdict.Reason, Stage: string(out.Verdict.Stage), Tier: uint32(max(out.Verdict.Tier, 0)), Rule: out.Verdict.Rule, ActionHash: out.Verdict.Hash}
	if allow {
		v.Decision = pb.Decision_DECISION_ALLOW
		r.allowed.Add(1)
	} else {
		r.blocked.Add(1)
	}
	// ok: it ran, and a command exited 0 (a timeout's exit code is -1).
	res := &pb.ToolResult{CallId: p.GetCallId(), SessionId: session, Ok: allow && !out.Result.IsError && out.Result.ExitCode == 0,
		Output: wire.Text(out.Result.Output)} // any bytes, escaped losslessly
	r.hub.publish(&pb.Event{SessionId: session, Kind: &pb.Event_Verdict{Verdict: v}})
	r.hub.publish(&pb.Event{SessionId: session, Kind: &pb.Event_ToolResult{ToolResult: res}})
	if err == nil {
		// The session's history holds its calls with their verdicts
		// (/history, /export); the store masks secrets in them.
		if herr := r.sessions.Append(ctx, session, "tool", callLine(p, out.Verdict.Decision, v, res.GetOk(), out.Result)); herr != nil {
			r.log.Warn("engine: keep a call in the session's history", "session", session, "error", herr)
		}
	}
	if out.Snapshot != 0 && turn != "" {
		if err := r.sessions.NoteSnapshot(ctx, session, turn, out.Snapshot); err != nil {
			// The snapshot is in Chronicle and can be rolled back by hand.
			r.log.Error("engine: note a snapshot for /undo", "session", session, "snapshot", out.Snapshot, "error", err)
		}
	}
	if len(out.Effects) > 0 && turn != "" {
		if err := r.sessions.NoteEffects(ctx, session, turn, out.Effects); err != nil {
			// /undo will not name them; the audit chain has the call.
			r.log.Error("engine: note what /undo cannot restore", "session", session, "error", err)
		}
	}
	if err := c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_Verdict{Verdict: v}}); err != nil {
		return
	}
	_ = c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_ToolResult{ToolResult: res}})
}

// shown is the copy of a proposal the clients see: its payload redacted
// as an approval's is (approval.RedactPayload), so a secret the agent
// writes reaches no client's event stream.
func (r *Runtime) shown(p *pb.ToolProposal) *pb.ToolProposal {
	c := proto.CloneOf(p)
	c.PayloadJson = approval.RedactPayload(r.pipe.dlp, p.GetPayloadJson())
	return c
}

// refuseProposal is the runtime's BLOCK before the pipeline, audited.
func (r *Runtime) refuseProposal(ctx context.Context, p *pb.ToolProposal, rule, reason string) Outcome {
	v := verdict.Verdict{Decision: verdict.Block, Stage: StageEngine, Rule: rule, Reason: reason}
	e := audit.FromVerdict(audit.ActionBlocked, p.GetSessionId(), clipName(p.GetActionType()), v)
	e.Detail = audit.Detail{Message: "call " + clipName(p.GetCallId())}
	r.appendAudit(ctx, e)
	return Outcome{Verdict: v, Result: Result{Output: refusalText(rule, reason), IsError: true}}
}

// serveLLM brokers one model request of the agent and streams the
// answer back; the done event is held until the usage is recorded, so an
// answer whose accounting failed ends in an error, never in done.
func (r *Runtime) serveLLM(ctx context.Context, c *agentConn, req *pb.LLMRequest) {
	id := req.GetRequestId()
	ctx, stop := context.WithCancel(ctx)
	c.mu.Lock()
	c.reqs[id] = stop
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.reqs, id)
		c.mu.Unlock()
		stop()
	}()
	fail := func(code, msg string) {
		_ = c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_LlmChunk{LlmChunk: wire.ChunkError(id, code, msg, false)}})
	}
	info, err := r.sessions.Get(ctx, req.GetSessionId())
	if err != nil {
		fail(RuleUnknownSession, "the model request names no session this engine runs")
		return
	}
	// An off-the-record session's id is not written anywhere: its usage
	// (tokens, cost, the audit entry) is recorded under one shared name,
	// which also gives all OTR sessions one per-session budget.
	usageSession := req.GetSessionId()
	if info.OTR {
		usageSession = OTRUsageSession
	}
	lreq, err := wire.FromRequest(req)
	if err != nil {
		fail("llm_bad_request", err.Error())
		return
	}
	var done *llm.Event
	_, err = r.broker.Stream(ctx, usageSession, llm.RoleChat, lreq, func(ev llm.Event) error {
		if ev.Kind == llm.EventDone {
			done = &ev
			return nil
		}
		return c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_LlmChunk{LlmChunk: wire.Chunk(id, ev)}})
	})
	if err == nil && done == nil {
		err = errors.New("the provider's answer ended without done")
	}
	if err != nil {
		code := RuleLLMError
		var re *RefusalError
		if errors.As(err, &re) {
			code = re.Rule
		}
		fail(code, err.Error())
		return
	}
	_ = c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_LlmChunk{LlmChunk: wire.Chunk(id, *done)}})
}

// turnDone ends a turn: the reply is kept and the clients told. A turn
// that is not in flight in the session the agent names is dropped.
func (r *Runtime) turnDone(ctx context.Context, d *pb.TurnDone) {
	ts, ok := r.endTurnOf(d.GetTurnId(), d.GetSessionId(), "turn end")
	if !ok {
		return
	}
	r.keepExchange(ts.session, ts.text, d.GetText())
	if err := r.sessions.Append(ctx, d.GetSessionId(), "assistant", d.GetText()); err != nil {
		r.log.Warn("keep reply", "session", d.GetSessionId(), "err", err)
	}
	r.hub.publish(&pb.Event{SessionId: d.GetSessionId(), Kind: &pb.Event_ResponseComplete{ResponseComplete: &pb.ResponseComplete{
		TurnId: d.GetTurnId(), StopReason: d.GetStopReason(), Usage: d.GetUsage(), Text: d.GetText()}}})
}

// inFlight reports whether turn is in flight in session; a message of
// the agent (what) for any other is logged and dropped by the caller, so
// the agent cannot publish under a session or turn of its choosing.
func (r *Runtime) inFlight(turn, session, what string) bool {
	r.mu.Lock()
	ts, ok := r.turns[turn]
	r.mu.Unlock()
	if !ok || ts.session != session {
		r.log.Warn("agent message dropped: no such turn in flight in its session", "message", what,
			"session", clipName(session), "turn", clipName(turn))
		return false
	}
	return true
}

// endTurnOf ends turn when it is in flight in session; else the agent's
// message (what) is logged and false returned.
func (r *Runtime) endTurnOf(turn, session, what string) (turnState, bool) {
	r.mu.Lock()
	ts, ok := r.turns[turn]
	if ok && ts.session == session {
		delete(r.turns, turn)
	}
	r.mu.Unlock()
	if !ok || ts.session != session {
		r.log.Warn("agent message dropped: no such turn in flight in its session", "message", what,
			"session", clipName(session), "turn", clipName(turn))
		return turnState{}, false
	}
	return ts, true
}

func (r *Runtime) endTurn(turn string) (turnState, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts, ok := r.turns[turn]
	delete(r.turns, turn)
	return ts, ok
}

// turnOf is the session's turn in flight ("" when none).
func (r *Runtime) turnOf(session string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t, ts := range r.turns {
		if ts.session == session {
			return t
		}
	}
	return ""
}

// callLine is a call as the session's history keeps it: the tool and what
// it acts on, the verdict (its rule and reason unless allowed), and for
// a call that ran whether it succeeded.
func callLine(p *pb.ToolProposal, d verdict.Decision, v *pb.Verdict, ok bool, res Result) string {
	line := p.GetActionType()
	if t := action.Target(p.GetPayloadJson()); t != "" {
		line += " " + t
	}
	line += " → " + d.String()
	if d != verdict.Allow {
		return line + " (" + v.GetRule() + "): " + v.GetReason()
	}
	switch {
	case ok:
		return line + ", ok"
	case res.ExitCode != 0:
		return line + ", exit status " + strconv.Itoa(res.ExitCode)
	}
	return line + ", failed"
}
