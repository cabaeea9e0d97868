package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/parallax/parallax/internal/agent"
	"github.com/parallax/parallax/internal/wire"
	"github.com/parallax/parallax/llm/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
	"github.com/parallax/parallax/verdict"
)

func callKey(session, call string) string { return session + "\x00" + call }

// linkProposer proposes tool calls to the engine over the link.
type linkProposer struct{ p *process }

var _ agent.Proposer = (*linkProposer)(nil)

// Propose sends the proposal and waits for its verdict and result. Only
// an ALLOW verdict is an ALLOW; anything else, or no answer, is a BLOCK.
func (l *linkProposer) Propose(ctx context.Context, pr agent.Proposal) (agent.Outcome, error) {
	key := callKey(pr.Session, pr.CallID)
	ch := make(chan *pb.EngineMessage, 4)
	l.p.mu.Lock()
	if _, dup := l.p.calls[key]; dup {
		l.p.mu.Unlock()
		return agent.Outcome{}, fmt.Errorf("call id %q is already waiting for the engine", pr.CallID)
	}
	l.p.calls[key] = ch
	l.p.mu.Unlock()
	defer func() {
		l.p.mu.Lock()
		delete(l.p.calls, key)
		l.p.mu.Unlock()
	}()
	err := l.p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_ToolProposal{ToolProposal: &pb.ToolProposal{
		CallId: pr.CallID, SessionId: pr.Session, ActionType: string(pr.Type), PayloadJson: pr.Payload}}})
	if err != nil {
		return agent.Outcome{}, fmt.Errorf("send proposal: %w", err)
	}
	out := agent.Outcome{Decision: verdict.Block, Rule: "no_verdict", Reason: "the engine sent no verdict"}
	for {
		select {
		case <-ctx.Done():
			return agent.Outcome{}, ctx.Err()
		case m := <-ch:
			if v := m.GetVerdict(); v != nil {
				if v.GetDecision() == pb.Decision_DECISION_PENDING {
					continue // a judge or a human decides; the final verdict follows
				}
				out.Decision, out.Rule, out.Reason = verdict.Block, v.GetRule(), v.GetReason()
				if out.Rule == "" {
					out.Rule = v.GetReasonCode()
				}
				if v.GetDecision() == pb.Decision_DECISION_ALLOW {
					out.Decision = verdict.Allow
				}
				continue
			}
			if r := m.GetToolResult(); r != nil {
				out.Output, out.IsError = r.GetOutput(), !r.GetOk()
				if r.GetError() != "" && out.Output == "" {
					out.Output = r.GetError()
				}
				return out, nil
			}
		}
	}
}

func (p *process) deliverCall(session, call string, m *pb.EngineMessage) {
	p.mu.Lock()
	ch, ok := p.calls[callKey(session, call)]
	p.mu.Unlock()
	if !ok {
		p.log.Warn("answer for no waiting call", "call", call)
		return
	}
	select {
	case ch <- m:
	default:
		p.log.Warn("call answers overflow", "call", call)
	}
}

// request is one model request waiting for its chunks.
type request struct {
	chunks chan *pb.LLMChunk
	done   chan struct{}
	once   sync.Once
	err    error
}

// fail ends the request with err (once).
func (r *request) fail(err error) {
	r.once.Do(func() {
		r.err = err
		close(r.done)
	})
}

func (p *process) deliverChunk(c *pb.LLMChunk) {
	p.mu.Lock()
	r, ok := p.reqs[c.GetRequestId()]
	p.mu.Unlock()
	if !ok {
		return // a request the agent gave up on
	}
	select {
	case r.chunks <- c:
	case <-r.done:
	}
}

// linkLLM is the model as the agent reaches it: through the engine,
// which holds the key, the budget and the provider.
type linkLLM struct {
	p       *process
	session string
}

var _ chat.Provider = (*linkLLM)(nil)

func (l *linkLLM) Complete(ctx context.Context, req chat.Request) (*chat.Response, error) {
	st, err := l.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return chat.Collect(st)
}

func (l *linkLLM) Stream(ctx context.Context, req chat.Request) (chat.Stream, error) {
	l.p.mu.Lock()
	l.p.nextID++
	id := "r" + strconv.FormatUint(l.p.nextID, 10)
	r := &request{chunks: make(chan *pb.LLMChunk, 64), done: make(chan struct{})}
	l.p.reqs[id] = r
	l.p.mu.Unlock()
	s := &linkStream{p: l.p, id: id, r: r, ctx: ctx}
	if err := l.p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_LlmRequest{LlmRequest: wire.Request(id, l.session, req)}}); err != nil {
		s.Close()
		return nil, fmt.Errorf("send model request: %w", err)
	}
	return s, nil
}

// linkStream reads one request's chunks.
type linkStream struct {
	p        *process
	id       string
	r        *request
	ctx      context.Context
	finished bool
	closed   sync.Once
}

func (s *linkStream) Next() (chat.Event, error) {
	if s.finished {
		return chat.Event{}, io.EOF
	}
	select {
	case <-s.ctx.Done():
		return chat.Event{}, s.ctx.Err()
	case <-s.r.done:
		return chat.Event{}, s.r.err
	case c := <-s.r.chunks:
		if e := c.GetError(); e != nil {
			s.finished = true
			return chat.Event{}, fmt.Errorf("%s: %s", e.GetCode(), e.GetMessage())
		}
		ev, ok := wire.FromChunk(c)
		if !ok {
			return chat.Event{}, errors.New("the engine sent an empty model chunk")
		}
		if ev.Kind == chat.EventDone {
			s.finished = true
		}
		return ev, nil
	}
}

// Close forgets the request; one the engine is still answering is
// cancelled there.
func (s *linkStream) Close() error {
	s.closed.Do(func() {
		s.p.mu.Lock()
		delete(s.p.reqs, s.id)
		s.p.mu.Unlock()
		s.r.fail(errors.New("closed"))
		if !s.finished {
			_ = s.p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_Error{Error: &pb.AgentError{Code: "llm_cancel", Message: s.id}}})
		}
	})
	return nil
}
