package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// fakeEvents replays events as an engine subscription.
type fakeEvents struct {
	pb.ClientService_SubscribeClient
	evs []*pb.Event
}

func (f *fakeEvents) Recv() (*pb.Event, error) {
	if len(f.evs) == 0 {
		return nil, io.EOF
	}
	ev := f.evs[0]
	f.evs = f.evs[1:]
	return ev, nil
}

// TestRunSaysItCannotAnswerAnApproval: a turn that waits for an approval
// says so on stderr (what, why, until when, where to answer) instead of
// waiting silently, and the turn still ends when the engine decides.
func TestRunSaysItCannotAnswerAnApproval(t *testing.T) {
	sub := &fakeEvents{evs: []*pb.Event{
		{SessionId: "s1", Kind: &pb.Event_ApprovalNeeded{ApprovalNeeded: &pb.ApprovalNeeded{ApprovalId: "ap1",
			ActionType: "execute_command", Reason: "uploads a file", DeadlineUnixMs: 1764410400000}}},
		{SessionId: "s1", Kind: &pb.Event_ApprovalResolved{ApprovalResolved: &pb.ApprovalResolved{ApprovalId: "ap1",
			Decision: pb.Decision_DECISION_BLOCK, Code: "timeout"}}},
		{SessionId: "s1", Kind: &pb.Event_ResponseComplete{ResponseComplete: &pb.ResponseComplete{TurnId: "t1", Text: "ok"}}},
	}}
	var out, errw bytes.Buffer
	if err := printTurn(sub, &out, &errw, &pb.SendMessageResponse{SessionId: "s1", TurnId: "t1"}, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"approval ap1 needed for execute_command: uploads a file", "cannot answer", "parallax chat", "10:00:00 UTC"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}
}
