package proc

import (
	"context"
	"fmt"

	"github.com/parallax/parallax/internal/agent"
	"github.com/parallax/parallax/internal/wire"
	"github.com/parallax/parallax/llm/chat"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// session runs one session's turns in order on its own goroutine.
type session struct {
	id   string
	p    *process
	in   chan *pb.UserMessage
	conv *agent.Conversation
	turn string // the running turn's id, for the sink
}

// sessionOf returns the session's worker, starting it on first use.
func (p *process) sessionOf(ctx context.Context, id string) *session {
	if s, ok := p.sessions[id]; ok {
		return s
	}
	s := &session{id: id, p: p, in: make(chan *pb.UserMessage, 64)}
	p.sessions[id] = s
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		s.run(ctx)
	}()
	return s
}

// enqueue hands a message to the session; a session with 64 messages
// waiting refuses more (the engine sends one turn at a time).
func (s *session) enqueue(m *pb.UserMessage) {
	select {
	case s.in <- m:
	default:
		s.p.sendError(s.id, m.GetTurnId(), "agent_busy", "the session has too many messages waiting")
	}
}

func (s *session) run(ctx context.Context) {
	for m := range s.in {
		if ctx.Err() != nil {
			s.p.sendError(s.id, m.GetTurnId(), "agent_stopping", "the agent is shutting down")
			continue
		}
		s.turnOnce(ctx, m)
	}
}

func (s *session) turnOnce(ctx context.Context, m *pb.UserMessage) {
	if s.conv == nil {
		cfg := s.p.cfg
		cfg.Session = s.id
		cfg.LLM = &linkLLM{p: s.p, session: s.id}
		cfg.Tools = &linkProposer{p: s.p}
		cfg.Sink = s.sink
		conv, err := agent.New(cfg)
		if err == nil && len(m.GetHistory()) > 0 {
			var hist []chat.Message
			if hist, err = wire.FromMessages(m.GetHistory()); err == nil {
				err = conv.Restore(hist)
			}
		}
		if err != nil {
			s.p.sendError(s.id, m.GetTurnId(), "agent_error", err.Error())
			return
		}
		s.conv = conv
	}
	tctx, stop := context.WithCancel(ctx)
	defer stop()
	s.turn = m.GetTurnId()
	s.p.mu.Lock()
	s.p.turns[s.turn] = stop
	s.p.mu.Unlock()
	defer func() {
		s.p.mu.Lock()
		delete(s.p.turns, m.GetTurnId())
		s.p.mu.Unlock()
	}()
	rep, err := s.conv.TurnWith(tctx, m.GetText(), int(m.GetMaxToolRounds()))
	if err != nil {
		s.p.sendError(s.id, m.GetTurnId(), "turn_error", err.Error())
		return
	}
	stopReason, text := pb.StopReason_STOP_REASON_END, rep.Text
	if rep.LimitReached {
		// Said in the reply too, so a reader of the text alone knows the
		// task was cut short and why, not finished.
		stopReason = pb.StopReason_STOP_REASON_TOOL_ROUND_LIMIT
		if text != "" {
			text += "\n\n"
		}
		text += fmt.Sprintf("[stopped: this turn reached its limit of %d tool rounds (agent.max_tool_rounds, or the turn's own limit: parallax run --max-rounds) before the task was done; send a message to go on]", rep.Rounds)
	}
	if err := s.p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_TurnDone{TurnDone: &pb.TurnDone{
		TurnId: m.GetTurnId(), SessionId: s.id, StopReason: stopReason, Usage: wire.Usage(rep.Usage), Text: text}}}); err != nil {
		s.p.log.Warn("send turn done", "err", err)
	}
}

// sink forwards the reply's text as it streams; the engine sees every
// other event itself.
func (s *session) sink(ev agent.Event) {
	if ev.Kind != agent.EventTextDelta {
		return
	}
	if err := s.p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_TextDelta{TextDelta: &pb.TextDelta{
		TurnId: s.turn, SessionId: s.id, Text: ev.Text}}}); err != nil {
		s.p.log.Warn("send text delta", "err", err)
	}
}

func (p *process) sendError(session, turn, code, msg string) {
	if err := p.send(&pb.AgentMessage{Msg: &pb.AgentMessage_Error{Error: &pb.AgentError{
		Code: code, Message: msg, SessionId: session, TurnId: turn}}}); err != nil {
		p.log.Warn("send error", "code", code, "err", fmt.Sprint(err))
	}
}
