package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/internal/wire"
	"github.com/parallax/parallax/internal/workspace"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// listen opens the client socket (0600, in the sealed state directory)
// and the ClientService on it. Every connection is checked with
// SO_PEERCRED: only this engine's uid is served.
func (r *Runtime) listen() error {
	path := r.opts.Socket
	if len(path) >= len(unix.RawSockaddrUnix{}.Path) {
		return fmt.Errorf("engine: the client socket path %s is too long for a unix socket", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("engine: remove stale socket %s: %w", path, err)
	}
	old := syscall.Umask(0o177)
	lis, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("engine: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		lis.Close()
		return fmt.Errorf("engine: chmod %s: %w", path, err)
	}
	r.lis = &sameUID{Listener: lis, uid: os.Getuid(), log: r.log.Warn}
	// Every call proves its credential and its method's permission
	// (authz.go) before anything is served.
	r.srv = grpc.NewServer(grpc.Creds(insecure.NewCredentials()), grpc.MaxRecvMsgSize(4<<20),
		grpc.ChainUnaryInterceptor(r.auth.unary, validTextUnary), grpc.ChainStreamInterceptor(r.auth.stream, validTextStream))
	pb.RegisterClientServiceServer(r.srv, &clientService{r: r})
	return nil
}

// validTextUnary and validTextStream escape (wire.ValidText) any string
// of an answer that is not valid UTF-8, so a stray byte in a session
// title or a result reaches the client instead of failing the call.
func validTextUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	resp, err := h(ctx, req)
	if m, ok := resp.(proto.Message); ok && err == nil {
		return wire.ValidText(m), nil
	}
	return resp, err
}

func validTextStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	return h(srv, validTextServerStream{ss})
}

type validTextServerStream struct{ grpc.ServerStream }

func (s validTextServerStream) SendMsg(m any) error {
	if pm, ok := m.(proto.Message); ok {
		m = wire.ValidText(pm)
	}
	return s.ServerStream.SendMsg(m)
}

// sameUID accepts only connections from the engine's own uid.
type sameUID struct {
	net.Listener
	uid int
	log func(msg string, args ...any)
}

func (l *sameUID) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if !ok {
			c.Close()
			continue
		}
		uid, err := peerUID(uc)
		if err != nil || uid != l.uid {
			l.log("client refused: not the engine's uid", "uid", uid, "err", err)
			c.Close()
			continue
		}
		return c, nil
	}
}

func peerUID(c *net.UnixConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) //nolint:gosec // a descriptor fits in int
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}

// clientService is the ClientService of the chat, web page and channels.
type clientService struct {
	pb.UnimplementedClientServiceServer
	r *Runtime
}

// SendMessage starts a turn: a new session when none is named.
func (s *clientService) SendMessage(ctx context.Context, req *pb.SendMessageRequest) (*pb.SendMessageResponse, error) {
	if req.GetMaxToolRounds() > MaxTurnToolRounds {
		return nil, status.Errorf(codes.InvalidArgument, "max_tool_rounds %d: at most %d", req.GetMaxToolRounds(), MaxTurnToolRounds)
	}
	session, turn, err := s.r.SendWith(ctx, req.GetSessionId(), req.GetText(), req.GetOrigin(), req.GetOtr(), int(req.GetMaxToolRounds()))
	if err != nil {
		return nil, err
	}
	return &pb.SendMessageResponse{SessionId: session, TurnId: turn}, nil
}

// MaxTurnToolRounds bounds the tool rounds one turn may ask for.
const MaxTurnToolRounds = 1000

// Send hands a user message to the agent and returns the session and
// turn; the turn's events follow on the event stream.
func (r *Runtime) Send(ctx context.Context, session, text, origin string, otr bool) (string, string, error) {
	return r.SendWith(ctx, session, text, origin, otr, 0)
}

// SendWith is Send with this turn's limit of tool rounds (0: the
// configured agent.max_tool_rounds).
func (r *Runtime) SendWith(ctx context.Context, session, text, origin string, otr bool, maxRounds int) (string, string, error) {
	if text == "" {
		return "", "", status.Error(codes.InvalidArgument, "empty message")
	}
	if session == "" {
		info, err := r.sessions.New(ctx, otr)
		if err != nil {
			return "", "", status.Errorf(codes.Internal, "new session: %v", err)
		}
		session = info.ID
		r.hub.mark(session, info.OTR)
	} else if info, err := r.sessions.Get(ctx, session); err != nil {
		return "", "", status.Errorf(codes.NotFound, "%v", err)
	} else {
		r.hub.mark(session, info.OTR)
	}
	c, err := r.waitAgent(ctx)
	if err != nil {
		return "", "", status.Errorf(codes.Unavailable, "%v", err)
	}
	if t := r.turnOf(session); t != "" {
		return "", "", status.Errorf(codes.FailedPrecondition, "session %s is still answering turn %s", session, t)
	}
	turn, err := r.sessions.StartTurn(ctx, session)
	if err != nil {
		return "", "", status.Errorf(codes.Internal, "start turn: %v", err)
	}
	if err := r.sessions.Append(ctx, session, "user", text); err != nil {
		return "", "", status.Errorf(codes.Internal, "keep message: %v", err)
	}
	r.mu.Lock()
	r.turns[turn] = turnState{session: session, text: text}
	r.mu.Unlock()
	var history []*pb.Message
	if c.firstOf(session) {
		h, err := r.earlierTurns(ctx, session)
		if err != nil {
			r.endTurn(turn)
			return "", "", status.Errorf(codes.Internal, "read the session's earlier turns: %v", err)
		}
		history = wire.Messages(h)
	}
	r.hub.publish(&pb.Event{SessionId: session, Kind: &pb.Event_MessageReceived{MessageReceived: &pb.MessageReceived{TurnId: turn, Text: text, Origin: origin}}})
	toAgent := text
	if n := r.sessions.TakeNotice(session); n != "" {
		toAgent = n + "\n\n" + text // what changed under the model since its last turn (an /undo)
	}
	if err := c.send(&pb.EngineMessage{Msg: &pb.EngineMessage_UserMessage{UserMessage: &pb.UserMessage{
		TurnId: turn, Text: toAgent, Origin: origin, SessionId: session, History: history,
		MaxToolRounds: uint32(min(max(maxRounds, 0), MaxTurnToolRounds))}}}); err != nil {
		r.endTurn(turn)
		r.turnFailed(ctx, session, turn, "agent_unreachable", err.Error())
		return "", "", status.Errorf(codes.Unavailable, "hand the message to the agent: %v", err)
	}
	return session, turn, nil
}

// Subscribe streams events until the client leaves or the engine stops.
func (s *clientService) Subscribe(req *pb.SubscribeRequest, st pb.ClientService_SubscribeServer) error {
	sub := s.r.hub.subscribe(req.GetSessionId(), req.GetAfterSeq(), actorOf(st.Context()).Local)
	defer s.r.hub.unsubscribe(sub)
	// A first empty event tells the client it is subscribed (seq 0).
	if err := st.Send(&pb.Event{SessionId: req.GetSessionId()}); err != nil {
		return err
	}
	for {
		select {
		case <-st.Context().Done():
			return nil
		case ev, ok := <-sub.ch:
			if !ok {
				return status.Error(codes.Unavailable, "the engine is stopping, or this client fell too far behind")
			}
			if err := st.Send(ev); err != nil {
				return err
			}
		}
	}
}

// AnswerApproval answers a tier 3 request; the first answer wins. The
// audit names the authenticated actor: what the client says it is
// (answered_by) is ignored.
func (s *clientService) AnswerApproval(ctx context.Context, req *pb.AnswerApprovalRequest) (*pb.AnswerApprovalResponse, error) {
	actor := actorOf(ctx)
	if actor.Name == "" || actor.Perms&PermApprove == 0 { // the interceptor let through no one
		return nil, status.Error(codes.PermissionDenied, "no authenticated approver")
	}
	if s.r.asks == nil {
		return &pb.AnswerApprovalResponse{Reason: "this engine asks no approvals: escalations end as BLOCK"}, nil
	}
	grant, err := grantOf(req.GetGrant())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	ok, reason := s.r.asks.answer(req.GetApprovalId(), req.GetApprove(), grant, actor.Name)
	return &pb.AnswerApprovalResponse{Accepted: ok, Reason: reason}, nil
}

func (s *clientService) ListSessions(ctx context.Context, _ *pb.ListSessionsRequest) (*pb.ListSessionsResponse, error) {
	list, err := s.r.sessions.List(ctx)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "list sessions: %v", err)
	}
	out := &pb.ListSessionsResponse{}
	local := actorOf(ctx).Local
	for _, si := range list {
		if si.OTR && !local {
			continue // off the record: local clients only
		}
		state := "idle"
		if s.r.turnOf(si.ID) != "" {
			state = "running"
		}
		out.Sessions = append(out.Sessions, &pb.SessionInfo{Id: si.ID, Title: si.Title, State: state,
			CreatedUnixMs: si.Created.UnixMilli(), Otr: si.OTR, Messages: uint32(max(si.Messages, 0))})
	}
	return out, nil
}

// Status reports the engine's state; usage it cannot read is an error.
func (s *clientService) Status(ctx context.Context, _ *pb.StatusRequest) (*pb.StatusResponse, error) {
	r := s.r
	u, err := r.ws.DB.LLMTotals(ctx, store.Day(r.opts.Now()), "")
	if err != nil {
		return nil, status.Errorf(codes.Internal, "read usage: %v", err)
	}
	list, err := r.sessions.List(ctx)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "list sessions: %v", err)
	}
	sandbox := "enforced"
	if r.settings.SandboxOff {
		sandbox = "off"
	}
	out := &pb.StatusResponse{EngineVersion: r.opts.Version, ProtocolVersion: pb.ProtocolVersion, StartedUnixMs: r.started.UnixMilli(),
		Sessions: uint32(len(list)), Sandbox: sandbox, Allowed: r.allowed.Load(), Blocked: r.blocked.Load(),
		InputTokensToday: u.InputTokens, OutputTokensToday: u.OutputTokens, CostUsdToday: float64(u.CostMicroUSD) / 1e6,
		DailyBudgetUsd: r.settings.DailyBudgetUSD, Pid: int64(os.Getpid()), AgentRestarts: r.restarts.Load()}
	r.mu.Lock()
	if r.agent != nil {
		out.AgentPid = int64(r.agent.pid)
	}
	r.mu.Unlock()
	if r.asks != nil {
		out.PendingApprovals = uint32(r.asks.count())
	}
	return out, nil
}

func (s *clientService) RunCommand(ctx context.Context, req *pb.CommandRequest) (*pb.CommandResponse, error) {
	switch req.GetName() {
	case "restart":
		s.r.requestStop(ErrRestart)
		return &pb.CommandResponse{Text: "restarting the engine"}, nil
	case "status", "usage":
		st, err := s.Status(ctx, &pb.StatusRequest{})
		if err != nil {
			return nil, err
		}
		return &pb.CommandResponse{Text: FormatStatus(s.r.opts.Root, st, s.r.opts.Now())}, nil
	}
	res, err := s.r.sessions.Command(ctx, req.GetSessionId(), req.GetName(), req.GetArgs())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "%v", err)
	}
	return &pb.CommandResponse{Text: res.Text, SwitchTo: res.Switch, Otr: res.OTR, Quit: res.Quit}, nil
}

// Shutdown stops or restarts the engine once the answer is sent.
func (s *clientService) Shutdown(_ context.Context, req *pb.ShutdownRequest) (*pb.ShutdownResponse, error) {
	var err error
	if req.GetRestart() {
		err = ErrRestart
	}
	s.r.requestStop(err)
	return &pb.ShutdownResponse{}, nil
}

// Client is a connection to a running engine's ClientService.
type Client struct {
	pb.ClientServiceClient
	cc *grpc.ClientConn
}

// Close closes the connection.
func (c *Client) Close() error { return c.cc.Close() }

// DialClient connects to the engine of the workspace at root through its
// client socket, with the workspace's client token. It fails at once when
// no engine listens there.
func DialClient(ctx context.Context, root string) (*Client, error) {
	path := SocketPath(root)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no engine runs here (socket %s: %w); start one with parallax start", path, err)
	}
	token, err := workspace.ReadToken(workspace.ClientTokenPath(root))
	if err != nil {
		return nil, fmt.Errorf("the engine's client credential: %w", err)
	}
	return DialSocket(ctx, path, token)
}

// DialSocket connects to the ClientService at a socket path, sending
// token with every call.
func DialSocket(ctx context.Context, path, token string) (*Client, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no engine runs here (socket %s: %w); start one with parallax start", path, err)
	}
	cc, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(tokenCreds(token)), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(16<<20)))
	if err != nil {
		return nil, fmt.Errorf("connect to the engine at %s: %w", path, err)
	}
	c := &Client{ClientServiceClient: pb.NewClientServiceClient(cc), cc: cc}
	if _, err := c.Status(ctx, &pb.StatusRequest{}, grpc.WaitForReady(false)); err != nil {
		cc.Close()
		return nil, fmt.Errorf("no engine answers on %s: %w", path, err)
	}
	return c, nil
}
