package shield

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

func TestGateRecordsEveryDecision(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: testWS, Home: testHome, Audit: log})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []Request{
		{Session: "s1", Type: "execute_command", Payload: json.RawMessage(cmdPayload("git status"))},
		{Session: "s1", Type: "read_file", Payload: json.RawMessage(`{"path":"~/.ssh/id_rsa"}`)},
		{Session: "s1", Type: "send_email", Payload: json.RawMessage(`{"to":"a@example.com","subject":"x","body":"token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"}`)},
	}
	var verdicts []verdict.Verdict
	for _, r := range reqs {
		verdicts = append(verdicts, g.Evaluate(context.Background(), r))
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("the chain does not verify: %v", err)
	}
	var got []audit.Entry
	if err := audit.Scan(path, audit.Filter{}, func(e audit.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(reqs) {
		t.Fatalf("got %d entries, want %d", len(got), len(reqs))
	}
	wantTypes := []audit.EventType{audit.ActionEvaluated, audit.ActionBlocked, audit.ActionBlocked}
	for i, e := range got {
		if e.Type != wantTypes[i] || e.Decision != verdicts[i].Decision.String() || e.ActionHash != verdicts[i].Hash ||
			e.Rule != verdicts[i].Rule || e.Session != "s1" {
			t.Errorf("entry %d: got %+v for verdict %+v", i, e, verdicts[i])
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "ghp_1a2B") {
		t.Errorf("the audit chain holds the token")
	}
}

type failingAppender struct{}

func (failingAppender) Append(context.Context, audit.Event) (audit.Entry, error) {
	return audit.Entry{}, errors.New("disk full")
}

func TestGateBlocksWhatItCannotRecord(t *testing.T) {
	g, err := New(Config{Workspace: testWS, Home: testHome, Audit: failingAppender{}})
	if err != nil {
		t.Fatal(err)
	}
	v := g.Evaluate(context.Background(), Request{Type: "execute_command", Payload: json.RawMessage(cmdPayload("git status"))})
	if v.Decision != verdict.Block || v.Rule != RuleAuditError {
		t.Fatalf("got %v %s, want BLOCK %s", v.Decision, v.Rule, RuleAuditError)
	}
}

func TestGateObserveTaintsAndAudits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: testWS, Home: testHome, Audit: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = g.Observe(ctx, Request{Session: "s1", Type: "execute_command", Payload: json.RawMessage(cmdPayload("cat notes.txt")),
		Result: "GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Observe(ctx, Request{Session: "s1", Type: "no_such_type", Payload: json.RawMessage(`{}`)}); err == nil {
		t.Error("an action that does not decode must be an error")
	}
	v := g.Evaluate(ctx, Request{Session: "s1", Type: "send_email", Payload: json.RawMessage(`{"to":"a@example.com","subject":"s","body":"hi"}`)})
	if v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("after an observed token: got %v at %s (%s)", v.Decision, v.Stage, v.Reason)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	var got []audit.Entry
	if err := audit.Scan(path, audit.Filter{Type: audit.IFCClassified}, func(e audit.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Detail.Code != "result_critical" || len(got[0].Detail.Labels) == 0 {
		t.Errorf("IFCClassified entries: %+v", got)
	}
}
