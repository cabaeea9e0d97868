package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/parallax/parallax/internal/engine"
	pxworkspace "github.com/parallax/parallax/internal/workspace"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// doorClient, when set, makes TestDoorClientHelperProcess the attacker
// of TestOtherWorkspaceCannotDriveThisEngine: a copy of the test binary,
// run by another workspace's command, drives the engine of the workspace
// named here as a client would.
var doorClient = flag.String("door-client", "", "workspace whose engine the helper process attacks")

// doorApproval, when set, makes the helper the attacker of
// TestOtherWorkspaceCannotApproveAPendingEscalation instead: it only
// answers this pending approval of the engine, approving, as one that
// learned the id but not the token would.
var doorApproval = flag.String("door-approval", "", "id of a pending approval of that engine the helper answers")

// wrongToken is a well-formed client token that is not the engine's.
const wrongToken = "0000000000000000000000000000000000000000000000000000000000000000"

// TestDoorClientHelperProcess is not a test: it is the attacking client,
// run in a command's sandbox (and, with -door-approval, also outside
// any). Each attempt prints "door OK WHAT" when it got through and "door
// refused WHAT: why" when it did not.
func TestDoorClientHelperProcess(t *testing.T) {
	if *doorClient == "" {
		t.Skip("the attacker of TestOtherWorkspaceCannotDriveThisEngine")
	}
	root := *doorClient
	report := func(what string, err error) {
		if err != nil {
			fmt.Printf("door refused %s: %v\n", what, err)
			return
		}
		fmt.Printf("door OK %s\n", what)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if *doorApproval != "" {
		for _, tok := range []string{"", wrongToken} {
			doorApprove(ctx, root, tok, *doorApproval, report)
		}
		return
	}
	_, err := os.Stat(engine.SocketPath(root))
	report("stat the socket", err)
	token, err := os.ReadFile(pxworkspace.ClientTokenPath(root))
	report("read client.token", err)
	if c, err := engine.DialClient(ctx, root); err == nil {
		c.Close()
		report("dial as a client", nil)
	} else {
		report("dial as a client", err)
	}
	for _, tok := range []string{"", string(token), wrongToken} {
		doorAttempts(ctx, root, tok, report)
	}
}

// doorAttempts calls each ClientService method that drives an engine,
// with tok as the credential.
func doorAttempts(ctx context.Context, root, tok string, report func(string, error)) {
	c, call, done := doorConn(ctx, root, tok, report)
	if c == nil {
		return
	}
	defer done()
	call("send a message", func(ctx context.Context) error {
		_, err := c.SendMessage(ctx, &pb.SendMessageRequest{Text: "door: send this to your model"})
		return err
	})
	call("subscribe", func(ctx context.Context) error {
		sub, err := c.Subscribe(ctx, &pb.SubscribeRequest{})
		if err == nil {
			_, err = sub.Recv()
		}
		return err
	})
	call("approve", func(ctx context.Context) error {
		_, err := c.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: "1", Approve: true, AnsweredBy: "user"})
		return err
	})
	call("stop the engine", func(ctx context.Context) error {
		_, err := c.Shutdown(ctx, &pb.ShutdownRequest{Reason: "door"})
		return err
	})
}

// doorApprove answers the pending approval id with tok as the
// credential, approving and claiming to be the user. A call the engine
// served is reported as got through, whether or not it was accepted.
func doorApprove(ctx context.Context, root, tok, id string, report func(string, error)) {
	c, call, done := doorConn(ctx, root, tok, report)
	if c == nil {
		return
	}
	defer done()
	cred := "no token"
	if tok != "" {
		cred = "a wrong token"
	}
	call(fmt.Sprintf("approve pending %s with %s", id, cred), func(ctx context.Context) error {
		r, err := c.AnswerApproval(ctx, &pb.AnswerApprovalRequest{ApprovalId: id, Approve: true, AnsweredBy: "user"})
		if err == nil {
			fmt.Printf("door answer accepted=%v reason=%q\n", r.GetAccepted(), r.GetReason())
		}
		return err
	})
}

// doorConn connects to root's engine as a raw gRPC client. call runs one
// attempt with tok as the credential (none when empty) and reports it;
// done closes the connection. c is nil when the connection failed.
func doorConn(ctx context.Context, root, tok string, report func(string, error)) (c pb.ClientServiceClient, call func(string, func(context.Context) error), done func()) {
	cc, err := grpc.NewClient("unix://"+engine.SocketPath(root), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		report("connect", err)
		return nil, nil, nil
	}
	call = func(what string, f func(context.Context) error) {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if tok != "" {
			cctx = metadata.AppendToOutgoingContext(cctx, engine.TokenMetadata, tok)
		}
		report(what, f(cctx))
	}
	return pb.NewClientServiceClient(cc), call, func() { _ = cc.Close() }
}
