package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// dialRaw connects to the runtime's socket with token ("" sends none),
// without DialSocket's first Status call.
func dialRaw(t *testing.T, e *rtEnv, token string) pb.ClientServiceClient {
	t.Helper()
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds(token)))
	}
	cc, err := grpc.NewClient("unix://"+e.rt.Socket(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return pb.NewClientServiceClient(cc)
}

func wantCode(t *testing.T, what string, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Errorf("%s: got %v (%v), want %v", what, got, err, want)
	}
}

// intruders are the clients of another workspace: no token, a wrong one,
// and another workspace's token.
func intruders(t *testing.T, e *rtEnv) map[string]pb.ClientServiceClient {
	return map[string]pb.ClientServiceClient{
		"no token":    dialRaw(t, e, ""),
		"wrong token": dialRaw(t, e, strings.Repeat("0", 64)),
		"near token":  dialRaw(t, e, clientToken(t, e)[:63]+"x"),
	}
}

func clientToken(t *testing.T, e *rtEnv) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, ".parallax", "client.token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// readerToken is a test-only credential that may only read.
var readerToken = strings.Repeat("5e", 32)

// A same-uid process without the workspace's client token (another
// workspace's command) gets Unauthenticated for everything, a reader
// PermissionDenied for all but reading, and nothing happens: its approval leaves the request pending, its message reaches
// neither agent nor model, its stop leaves the engine running, its
// subscription streams nothing.
func TestClientWithoutTokenCannotActOnTheEngine(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	outside := filepath.Join(e.home, "outside.txt")
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: write_file, input: {path: %q, content: "x"}}]
  - text: "first turn over"
  - text: "the legitimate second message"
`, outside))
	e.rt.auth.add(readerToken, Actor{Name: "reader", Perms: PermRead})
	e.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bad := intruders(t, e)
	reader := dialRaw(t, e, readerToken)
	if _, err := reader.Status(ctx, &pb.StatusRequest{}); err != nil {
		t.Fatalf("the reader's status: %v", err)
	}
	for name, c := range bad {
		sub, err := c.Subscribe(ctx, &pb.SubscribeRequest{})
		if err == nil {
			_, err = sub.Recv()
		}
		wantCode(t, name+": subscribe", err, codes.Unauthenticated)
	}
	sub, err := e.client.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); err != nil {
		t.Fatal(err)
	}
	resp, err := e.client.SendMessage(ctx, &pb.SendMessageRequest{Text: "write outside"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetApprovalNeeded(); a != nil {
			for name, c := range bad {
				_, err := c.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: true, AnsweredBy: "user"})
				wantCode(t, name+": approve", err, codes.Unauthenticated)
			}
			_, err := reader.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId(), Approve: true})
			wantCode(t, "reader: approve", err, codes.PermissionDenied)
			if st, err := e.client.Status(ctx, &pb.StatusRequest{}); err != nil || st.GetPendingApprovals() != 1 {
				t.Fatalf("after the intruders' approvals: %d pending (%v), want the request still pending", st.GetPendingApprovals(), err)
			}
			if r, err := e.client.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: a.GetApprovalId()}); err != nil || !r.GetAccepted() {
				t.Fatalf("the user's denial: %v %v", r, err)
			}
		}
		if ev.GetResponseComplete().GetTurnId() == resp.GetTurnId() {
			break
		}
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write an intruder approved ran: %v", err)
	}
	for name, c := range bad {
		_, err := c.SendMessage(ctx, &pb.SendMessageRequest{SessionId: resp.GetSessionId(), Text: "intruder"})
		wantCode(t, name+": send", err, codes.Unauthenticated)
		_, err = c.SendMessage(ctx, &pb.SendMessageRequest{Text: "intruder"})
		wantCode(t, name+": send (new session)", err, codes.Unauthenticated)
		_, err = c.Shutdown(ctx, &pb.ShutdownRequest{})
		wantCode(t, name+": stop", err, codes.Unauthenticated)
		_, err = c.RunCommand(ctx, &pb.CommandRequest{Name: "restart"})
		wantCode(t, name+": restart", err, codes.Unauthenticated)
		_, err = c.Status(ctx, &pb.StatusRequest{})
		wantCode(t, name+": status", err, codes.Unauthenticated)
	}
	_, err = reader.SendMessage(ctx, &pb.SendMessageRequest{SessionId: resp.GetSessionId(), Text: "reader"})
	wantCode(t, "reader: send", err, codes.PermissionDenied)
	_, err = reader.Shutdown(ctx, &pb.ShutdownRequest{})
	wantCode(t, "reader: stop", err, codes.PermissionDenied)
	_, err = reader.RunCommand(ctx, &pb.CommandRequest{Name: "restart"})
	wantCode(t, "reader: restart", err, codes.PermissionDenied)
	// The model's next scripted answer is still the next one: no
	// intruder's message reached the agent or the model.
	_, evs := e.turn(t, resp.GetSessionId(), "legitimate", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc.GetText() != "the legitimate second message" {
		t.Errorf("the user's turn got %v, want the model's next scripted answer", evs[len(evs)-1])
	}
	ls, err := e.client.ListSessions(ctx, &pb.ListSessionsRequest{})
	if err != nil || len(ls.GetSessions()) != 1 || ls.GetSessions()[0].GetMessages() != 5 {
		t.Errorf("sessions: %v %v, want one with the user's 4 messages and its 1 call", ls.GetSessions(), err)
	}
	select {
	case err := <-e.runErr:
		t.Fatalf("the engine stopped: %v", err)
	default:
	}
	e.stop(t)
}

// fakeStream is the server side of a stream for the interceptor alone.
type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }

// Every method needs its permission and nothing else: a credential with
// one permission reaches exactly the methods of that level, and every
// other call is PermissionDenied before its handler runs.
func TestClientPermissionsPerMethod(t *testing.T) {
	type call struct {
		name   string
		method string
		req    any // nil: a stream
		need   Permission
	}
	calls := []call{
		{"subscribe", pb.ClientService_Subscribe_FullMethodName, nil, PermRead},
		{"list sessions", pb.ClientService_ListSessions_FullMethodName, &pb.ListSessionsRequest{}, PermRead},
		{"status", pb.ClientService_Status_FullMethodName, &pb.StatusRequest{}, PermRead},
		{"/status", pb.ClientService_RunCommand_FullMethodName, &pb.CommandRequest{Name: "status"}, PermRead},
		{"/usage", pb.ClientService_RunCommand_FullMethodName, &pb.CommandRequest{Name: "usage"}, PermRead},
		{"send", pb.ClientService_SendMessage_FullMethodName, &pb.SendMessageRequest{Text: "hi"}, PermSend},
		{"/new", pb.ClientService_RunCommand_FullMethodName, &pb.CommandRequest{Name: "new"}, PermSend},
		{"/undo", pb.ClientService_RunCommand_FullMethodName, &pb.CommandRequest{Name: "undo"}, PermSend},
		{"approve", pb.ClientService_AnswerApproval_FullMethodName, &pb.AnswerApprovalRequest{ApprovalId: "a"}, PermApprove},
		{"/restart", pb.ClientService_RunCommand_FullMethodName, &pb.CommandRequest{Name: "restart"}, PermAdmin},
		{"stop", pb.ClientService_Shutdown_FullMethodName, &pb.ShutdownRequest{}, PermAdmin},
		{"unknown method", "/parallax.v1.ClientService/Exec", &pb.StatusRequest{}, 0},
	}
	levels := []Permission{0, PermRead, PermSend, PermApprove, PermAdmin, permAll}
	var a authorizer
	for _, p := range levels {
		a.add("token-"+p.String(), Actor{Name: "actor-" + p.String(), Perms: p})
	}
	for _, p := range levels {
		for _, c := range calls {
			t.Run(p.String()+"/"+c.name, func(t *testing.T) {
				ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(TokenMetadata, "token-"+p.String()))
				var ran Actor
				var err error
				if c.req == nil {
					err = a.stream(nil, fakeStream{ctx: ctx}, &grpc.StreamServerInfo{FullMethod: c.method},
						func(_ any, ss grpc.ServerStream) error { ran = actorOf(ss.Context()); return nil })
				} else {
					_, err = a.unary(ctx, c.req, &grpc.UnaryServerInfo{FullMethod: c.method},
						func(ctx context.Context, _ any) (any, error) { ran = actorOf(ctx); return nil, nil })
				}
				allowed := c.need != 0 && p&c.need == c.need
				if allowed {
					if err != nil || ran.Name != "actor-"+p.String() {
						t.Errorf("got %v, ran as %q, want served as actor-%s", err, ran.Name, p)
					}
					return
				}
				wantCode(t, "call", err, codes.PermissionDenied)
				if ran.Name != "" {
					t.Errorf("the handler ran as %q, want it never called", ran.Name)
				}
			})
		}
	}
	// Every method of the service is in the table.
	for _, m := range pb.ClientService_ServiceDesc.Methods {
		if _, ok := methodPerms["/"+pb.ClientService_ServiceDesc.ServiceName+"/"+m.MethodName]; !ok {
			t.Errorf("method %s has no permission in methodPerms", m.MethodName)
		}
	}
	for _, s := range pb.ClientService_ServiceDesc.Streams {
		if _, ok := methodPerms["/"+pb.ClientService_ServiceDesc.ServiceName+"/"+s.StreamName]; !ok {
			t.Errorf("stream %s has no permission in methodPerms", s.StreamName)
		}
	}
}

// A token is compared whole: no token, an empty one, two of them, a
// prefix, or a token with a byte changed authenticate nobody.
func TestClientTokenMustMatchExactly(t *testing.T) {
	var a authorizer
	good := strings.Repeat("ab", 32)
	a.add(good, Actor{Name: ActorLocalUser, Perms: permAll, Local: true})
	for name, md := range map[string]metadata.MD{
		"none":       {},
		"empty":      metadata.Pairs(TokenMetadata, ""),
		"prefix":     metadata.Pairs(TokenMetadata, good[:63]),
		"longer":     metadata.Pairs(TokenMetadata, good+"a"),
		"one byte":   metadata.Pairs(TokenMetadata, "b"+good[1:]),
		"two tokens": metadata.Pairs(TokenMetadata, good, TokenMetadata, good),
		"other key":  metadata.Pairs("authorization", good),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := a.authorize(metadata.NewIncomingContext(context.Background(), md), pb.ClientService_Status_FullMethodName, &pb.StatusRequest{})
			wantCode(t, "status", err, codes.Unauthenticated)
		})
	}
	actor, err := a.authorize(metadata.NewIncomingContext(context.Background(), metadata.Pairs(TokenMetadata, good)),
		pb.ClientService_Status_FullMethodName, &pb.StatusRequest{})
	if err != nil || actor.Name != ActorLocalUser {
		t.Errorf("the good token: got %v %v", actor, err)
	}
}
