package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// A token the agent writes with write_file reaches no client: the
// ToolProposed event carries the payload redacted as an approval's is.
func TestToolProposedCannotCarryASecretToClients(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	writeFile(t, scriptPath(t, e), fmt.Sprintf(`turns:
  - tool_calls: [{name: write_file, input: {path: %q, content: "token=%s"}}]
  - text: "written"
`, filepath.Join(e.root, "notes.txt"), testToken))
	e.start(t)
	_, evs := e.turn(t, "", "write it", false)
	proposed := 0
	for _, ev := range evs {
		if tp := ev.GetToolProposed(); tp != nil {
			proposed++
			if p := string(tp.GetProposal().GetPayloadJson()); strings.Contains(p, testToken) || !strings.Contains(p, "notes.txt") {
				t.Errorf("ToolProposed payload: got %s, want the path without the token", p)
			}
		}
		if strings.Contains(ev.String(), testToken) {
			t.Errorf("an event carries the token: %v", ev)
		}
	}
	if proposed != 1 {
		t.Errorf("got %d ToolProposed events, want 1", proposed)
	}
	e.stop(t)
}

// A client that is not local (a test-only credential) sees nothing of an
// off-the-record session: not on a subscription to every session, not on
// one to that session, not in the session list.
func TestRemoteClientCannotSeeOffTheRecordSessions(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	writeFile(t, scriptPath(t, e), "turns:\n  - text: \"off the record reply\"\n  - text: \"on the record reply\"\n")
	e.rt.auth.add(readerToken, Actor{Name: "remote-reader", Perms: PermRead})
	e.start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	remote := dialRaw(t, e, readerToken)
	all, err := remote.Subscribe(ctx, &pb.SubscribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := all.Recv(); err != nil {
		t.Fatal(err)
	}
	otr, _ := e.turn(t, "", "secret plans", true)
	one, err := remote.Subscribe(ctx, &pb.SubscribeRequest{SessionId: otr, AfterSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.Recv(); err != nil {
		t.Fatal(err)
	}
	pub, _ := e.turn(t, "", "public plans", false)
	ls, err := remote.ListSessions(ctx, &pb.ListSessionsRequest{})
	if err != nil || len(ls.GetSessions()) != 1 || ls.GetSessions()[0].GetId() != pub {
		t.Errorf("the remote's sessions: %v %v, want only %s", ls.GetSessions(), err, pub)
	}
	// Every session: the public turn's events, and none of the OTR one.
	for {
		ev, err := all.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetSessionId() != pub || strings.Contains(ev.String(), "secret plans") {
			t.Fatalf("the remote client got an event of %s: %v", ev.GetSessionId(), ev)
		}
		if ev.GetResponseComplete() != nil {
			break
		}
	}
	e.stop(t)
	if ev, err := one.Recv(); err == nil && ev.GetSessionId() == otr {
		t.Errorf("the remote's subscription to the OTR session got %v", ev)
	}
}

// The agent publishes only for a turn in flight in the session it names:
// text and turn ends for another session, or an unknown turn, are dropped
// and the turn stays in flight.
func TestAgentCannotPublishOutsideItsTurn(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	t.Cleanup(func() { e.rt.Close() })
	ctx := context.Background()
	mine, err := e.rt.sessions.New(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.rt.sessions.New(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	e.rt.turns["t1"] = turnState{session: mine.ID, text: "hi"}
	sub := e.rt.hub.subscribe("", 0, true)
	c := newAgentConn(e.rt, 0, time.Now(), time.Now())
	for _, m := range []*pb.AgentMessage{
		{Msg: &pb.AgentMessage_TextDelta{TextDelta: &pb.TextDelta{TurnId: "t1", SessionId: other.ID, Text: "forged"}}},
		{Msg: &pb.AgentMessage_TextDelta{TextDelta: &pb.TextDelta{TurnId: "t9", SessionId: mine.ID, Text: "forged"}}},
		{Msg: &pb.AgentMessage_TurnDone{TurnDone: &pb.TurnDone{TurnId: "t1", SessionId: other.ID, Text: "forged"}}},
		{Msg: &pb.AgentMessage_TurnDone{TurnDone: &pb.TurnDone{TurnId: "t9", SessionId: other.ID, Text: "forged"}}},
		{Msg: &pb.AgentMessage_Error{Error: &pb.AgentError{Code: "x", TurnId: "t1", SessionId: other.ID, Message: "forged"}}},
	} {
		c.dispatch(m)
	}
	if got := drain(sub.ch); len(got) != 0 {
		t.Errorf("forged messages were published: %v", got)
	}
	if e.rt.turnOf(mine.ID) != "t1" {
		t.Error("a forged turn end ended the turn in flight")
	}
	if info, err := e.rt.sessions.Get(ctx, other.ID); err != nil || info.Messages != 0 {
		t.Errorf("the other session: %+v %v, want no message kept", info, err)
	}
	c.dispatch(&pb.AgentMessage{Msg: &pb.AgentMessage_TextDelta{TextDelta: &pb.TextDelta{TurnId: "t1", SessionId: mine.ID, Text: "real"}}})
	c.dispatch(&pb.AgentMessage{Msg: &pb.AgentMessage_TurnDone{TurnDone: &pb.TurnDone{TurnId: "t1", SessionId: mine.ID, Text: "real"}}})
	if got := len(drain(sub.ch)); got != 2 || e.rt.turnOf(mine.ID) != "" {
		t.Errorf("the real turn: %d events, in flight %q; want 2 events and the turn ended", got, e.rt.turnOf(mine.ID))
	}
}
