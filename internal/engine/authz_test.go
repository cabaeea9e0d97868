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

// A same-uid process without the workspace's client token (another
// workspace's command) gets Unauthenticated for everything, and nothing
// happens: its approval leaves the request pending, its message reaches
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
	e.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bad := intruders(t, e)
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
	// The model's next scripted answer is still the next one: no
	// intruder's message reached the agent or the model.
	_, evs := e.turn(t, resp.GetSessionId(), "legitimate", false)
	if rc := evs[len(evs)-1].GetResponseComplete(); rc.GetText() != "the legitimate second message" {
		t.Errorf("the user's turn got %v, want the model's next scripted answer", evs[len(evs)-1])
	}
	ls, err := e.client.ListSessions(ctx, &pb.ListSessionsRequest{})
	if err != nil || len(ls.GetSessions()) != 1 || ls.GetSessions()[0].GetMessages() != 4 {
		t.Errorf("sessions: %v %v, want one with the user's 4 messages", ls.GetSessions(), err)
	}
	select {
	case err := <-e.runErr:
		t.Fatalf("the engine stopped: %v", err)
	default:
	}
	e.stop(t)
}
