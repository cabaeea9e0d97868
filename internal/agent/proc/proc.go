package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"google.golang.org/grpc"

	"github.com/parallax/parallax/internal/agent"
	"github.com/parallax/parallax/internal/agentlink"
	"github.com/parallax/parallax/internal/wire"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// Probe is one attempt the sandbox must refuse, as the agent saw it.
type Probe struct {
	Name    string
	Refused bool
	Detail  string
}

// SandboxReport is what applying the sandbox achieved.
type SandboxReport struct {
	LandlockABI uint32
	Seccomp     bool
	// Disabled is set when the sandbox is off by configuration.
	Disabled bool
	Probes   []Probe
}

// RunOptions configure RunProcess.
type RunOptions struct {
	// Sandbox applies the agent's sandbox to this process and probes it;
	// required. An error stops the agent before it reads anything.
	Sandbox func() (SandboxReport, error)
	// Version is the agent binary's build version, sent in Hello.
	Version string
	// Dial takes the link; nil uses agentlink.Dial.
	Dial   func(ctx context.Context, opts ...grpc.DialOption) (*agentlink.Client, error)
	Logger *slog.Logger
}

// ErrNoSandbox is returned when RunOptions has no Sandbox function.
var ErrNoSandbox = errors.New("agent: no sandbox function: refusing to run unsandboxed")

// ErrSandbox wraps the failure of the Sandbox function.
var ErrSandbox = errors.New("agent: the sandbox cannot be applied, so the agent does not start")

// RunProcess runs the agent until the engine shuts it down (nil) or the
// link fails (an error).
func RunProcess(ctx context.Context, opts RunOptions) error {
	if opts.Sandbox == nil {
		return ErrNoSandbox
	}
	rep, err := opts.Sandbox()
	if err != nil {
		return fmt.Errorf("%w: %w (agent.sandbox: off in config.yaml runs it without one, at your risk)", ErrSandbox, err)
	}
	dial := opts.Dial
	if dial == nil {
		dial = agentlink.Dial
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := dial(ctx)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Agent().Connect(ctx)
	if err != nil {
		return fmt.Errorf("agent: connect: %w", err)
	}
	p := &process{st: st, log: opts.Logger, cancel: cancel, calls: map[string]chan *pb.EngineMessage{},
		reqs: map[string]*request{}, turns: map[string]context.CancelFunc{}, sessions: map[string]*session{}}
	if err := p.send(c.Hello(opts.Version)); err != nil {
		return fmt.Errorf("agent: send hello: %w", err)
	}
	if err := p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_SandboxReport{SandboxReport: reportMsg(rep)}}); err != nil {
		return fmt.Errorf("agent: send sandbox report: %w", err)
	}
	first, err := st.Recv()
	if err != nil {
		return fmt.Errorf("agent: waiting for welcome: %w", err)
	}
	w := first.GetWelcome()
	if w == nil {
		return fmt.Errorf("agent: the engine's first message is %T, not welcome", first.GetMsg())
	}
	if w.GetProtocolVersion() != pb.ProtocolVersion {
		return fmt.Errorf("agent: the engine speaks protocol %d, this agent %d", w.GetProtocolVersion(), pb.ProtocolVersion)
	}
	p.setup(w.GetConfig())
	err = p.serve(ctx)
	cancel()
	p.wg.Wait()
	return err
}

func reportMsg(r SandboxReport) *pb.SandboxReport {
	out := &pb.SandboxReport{LandlockAbi: r.LandlockABI, Seccomp: r.Seccomp, Disabled: r.Disabled}
	for _, pr := range r.Probes {
		out.Probes = append(out.Probes, &pb.Probe{Name: pr.Name, Refused: pr.Refused, Detail: pr.Detail})
	}
	return out
}

// process is the running agent: the stream, the waiters of proposals
// and model requests, and the sessions' conversations.
type process struct {
	st     pb.AgentService_ConnectClient
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup

	sendMu sync.Mutex

	cfg    agent.Config // template: Model, System, Limits
	mu     sync.Mutex
	calls  map[string]chan *pb.EngineMessage // session \x00 call id → verdicts and result
	reqs   map[string]*request               // request id → its chunks
	turns  map[string]context.CancelFunc     // turn id → cancel
	nextID uint64

	sessions map[string]*session // touched by serve's goroutine only
}

// send writes one message; gRPC streams take one sender at a time. A
// string that is not valid UTF-8 (text cut inside a character) is sent
// escaped (wire.ValidText): proto3 would refuse it and end the link.
func (p *process) send(m *pb.AgentMessage) error {
	m = wire.ValidText(m)
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	return p.st.Send(m)
}

func (p *process) setup(c *pb.AgentConfig) {
	b := agent.Bootstrap{Files: map[string]string{}}
	for _, f := range c.GetPromptFiles() {
		b.Files[f.GetName()] = f.GetContent()
	}
	for _, s := range c.GetSkills() {
		b.Skills = append(b.Skills, agent.Skill{Name: s.GetName(), Description: s.GetDescription(), Source: s.GetSource()})
	}
	l := c.GetLimits()
	p.cfg = agent.Config{Model: c.GetModel(), System: agent.SystemPrompt(b, agent.Env{Workspace: c.GetWorkspace(), Today: c.GetToday()}),
		Limits: agent.Limits{MaxToolRounds: int(l.GetMaxTurnSteps()), ContextTokens: int(l.GetMaxContextTokens()),
			MaxResponseTokens: int(l.GetMaxOutputTokens()), CompactAt: c.GetCompactAt()}}
}

// serve reads the engine's messages until Shutdown or the link ends.
func (p *process) serve(ctx context.Context) error {
	defer p.closeSessions()
	for {
		m, err := p.st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("agent: link: %w", err)
		}
		switch msg := m.GetMsg().(type) {
		case *pb.EngineMessage_UserMessage:
			p.sessionOf(ctx, msg.UserMessage.GetSessionId()).enqueue(msg.UserMessage)
		case *pb.EngineMessage_Verdict:
			p.deliverCall(msg.Verdict.GetSessionId(), msg.Verdict.GetCallId(), m)
		case *pb.EngineMessage_ToolResult:
			p.deliverCall(msg.ToolResult.GetSessionId(), msg.ToolResult.GetCallId(), m)
		case *pb.EngineMessage_LlmChunk:
			p.deliverChunk(msg.LlmChunk)
		case *pb.EngineMessage_Cancel:
			p.cancelOne(msg.Cancel)
		case *pb.EngineMessage_Shutdown:
			p.log.Info("shutdown", "reason", msg.Shutdown.GetReason())
			return nil
		default:
			p.log.Warn("unexpected engine message", "type", fmt.Sprintf("%T", msg))
		}
	}
}

func (p *process) cancelOne(c *pb.Cancel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id := c.GetRequestId(); id != "" {
		if r, ok := p.reqs[id]; ok {
			r.fail(errors.New("cancelled by the engine: " + c.GetReason()))
		}
		return
	}
	if stop, ok := p.turns[c.GetTurnId()]; ok {
		stop()
	}
}

func (p *process) closeSessions() {
	p.cancel()
	for _, s := range p.sessions {
		close(s.in)
	}
}

// Exit codes of `parallax agent`.
const (
	ExitOK      = 0
	ExitFailure = 1
	// ExitSandbox: the sandbox could not be applied.
	ExitSandbox = 2
)

// Main runs the agent and returns its exit code, writing a failure to
// stderr.
func Main(ctx context.Context, opts RunOptions) int {
	err := RunProcess(ctx, opts)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(os.Stderr, "parallax agent:", err)
	if errors.Is(err, ErrNoSandbox) || errors.Is(err, ErrSandbox) {
		return ExitSandbox
	}
	return ExitFailure
}
