package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	pb "github.com/parallax/parallax/proto/parallax/v1"
)

// A proposal runs only for a session this engine runs, and an
// off-the-record session runs no command: each refused proposal leaves
// the disk as it was and is audited with its rule. The control (a
// session on the record) proves the same proposals would run.
func TestProposalCannotRunForAnUnknownOrOffTheRecordSession(t *testing.T) {
	e := newRuntimeEnv(t, rtOptions{})
	defer e.rt.Close()
	ctx := context.Background()
	onRecord, err := e.rt.sessions.New(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	otr, err := e.rt.sessions.New(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	command := func(name string) (string, []byte) {
		b, _ := json.Marshal(map[string]any{"command": "echo x > " + filepath.Join(e.root, name)})
		return "execute_command", b
	}
	write := func(name string) (string, []byte) {
		b, _ := json.Marshal(map[string]any{"path": filepath.Join(e.root, name), "content": "x"})
		return "write_file", b
	}
	cases := []struct {
		name, session, file string
		proposal            func(string) (string, []byte)
		rule                string // "" = runs
	}{
		{"command on the record", onRecord.ID, "ran.txt", command, ""},
		{"write on the record", onRecord.ID, "wrote.txt", write, ""},
		{"command off the record", otr.ID, "otr.txt", command, RuleOTRReadOnly},
		{"write for an unknown session", "no-such-session", "unknown.txt", write, RuleUnknownSession},
		{"command for an unknown session", "no-such-session", "unknown-cmd.txt", command, RuleUnknownSession},
	}
	c := newAgentConn(e.rt, 0, time.Now(), time.Now())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, payload := tc.proposal(tc.file)
			pctx, cancel := context.WithTimeout(ctx, testWait)
			defer cancel()
			e.rt.propose(pctx, c, &pb.ToolProposal{SessionId: tc.session, CallId: "call-" + tc.file, ActionType: typ, PayloadJson: payload})
			_, err := os.Stat(filepath.Join(e.root, tc.file))
			switch {
			case tc.rule == "" && err != nil:
				t.Fatalf("control: the proposal did not run (%v), so the test proves nothing", err)
			case tc.rule != "" && !errors.Is(err, os.ErrNotExist):
				t.Fatalf("the refused proposal reached the disk: %v", err)
			}
		})
	}
	if err := e.rt.Close(); err != nil {
		t.Fatal(err)
	}
	blocked := map[string]string{}
	for _, en := range verifiedChain(t, e.root) {
		if en.Type == audit.ActionBlocked {
			blocked[en.Detail.Message] = en.Rule
		}
	}
	for _, tc := range cases {
		if tc.rule != "" && blocked["call call-"+tc.file] != tc.rule {
			t.Errorf("%s: audited %q, want an ActionBlocked %s entry", tc.name, blocked["call call-"+tc.file], tc.rule)
		}
	}
}
