package shield

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/verdict"
)

// The tests of this file inject one fault each into the gate and hold the
// branch that turns it into a BLOCK: each fails when its branch answers
// ALLOW (or leaves the ESCALATE, or the public taint) instead.

func readReq(session, path string) Request {
	b, _ := json.Marshal(map[string]string{"path": path}) // strings always marshal
	return Request{Session: session, Type: "read_file", Payload: b}
}

func cmdReq(session, cmd string) Request {
	return Request{Session: session, Type: "execute_command", Payload: json.RawMessage(cmdPayload(cmd))}
}

// panicStage is a stage that panics, as a bug in any stage would.
func panicStage(*Gate, *state) (verdict.Verdict, bool) { panic("injected fault") }

// TestGatePanicBlocks: a panic anywhere in the pipeline is a BLOCK with
// RuleInternalError, whatever the action would have been.
func TestGatePanicBlocks(t *testing.T) {
	tests := []struct {
		name  string
		at    int // index in the pipeline the panicking stage replaces
		req   Request
		clean verdict.Decision // the decision without the fault
	}{
		{"decode", 0, readReq("", testWS+"/main.go"), verdict.Allow},
		{"fast path", 3, cmdReq("", "git status"), verdict.Allow},
		{"policy", 5, readReq("", testWS+"/main.go"), verdict.Allow},
		{"judge", len(pipeline) - 1, cmdReq("", "rm -rf build/"), verdict.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGate(t, "default")
			if v := g.Evaluate(context.Background(), tt.req); v.Decision != tt.clean {
				t.Fatalf("without the fault: got %v (%s: %s), want %v", v.Decision, v.Rule, v.Reason, tt.clean)
			}
			g.stages = append([]stage(nil), pipeline...)
			g.stages[tt.at] = stage{pipeline[tt.at].name, panicStage}
			v := g.Evaluate(context.Background(), tt.req)
			if v.Decision != verdict.Block || v.Rule != RuleInternalError || v.Reason == "" {
				t.Fatalf("got %v %s (%s), want BLOCK %s", v.Decision, v.Rule, v.Reason, RuleInternalError)
			}
		})
	}
}

// panicAppender is an audit writer that panics.
type panicAppender struct{}

func (panicAppender) Append(context.Context, audit.Event) (audit.Entry, error) {
	panic("injected fault in the audit writer")
}

// TestAuditPanicBlocks: a decision the audit writer panicked on is not
// returned as it was: a BLOCK with RuleAuditError. The real writer is
// faulted too (its clock panics inside Append, its redactor panics inside
// the entry's preparation).
func TestAuditPanicBlocks(t *testing.T) {
	realLog := func(opts audit.Options) func(t *testing.T) Appender {
		return func(t *testing.T) Appender {
			l, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			return l
		}
	}
	tests := []struct {
		name  string
		audit func(t *testing.T) Appender
	}{
		{"appender panics", func(*testing.T) Appender { return panicAppender{} }},
		{"log clock panics", realLog(audit.Options{Clock: func() time.Time { panic("injected clock fault") }})},
		{"log redactor panics", realLog(audit.Options{Redactor: audit.RedactFunc(func(string) string {
			panic("injected redactor fault")
		})})},
	}
	reqs := []Request{readReq("s1", testWS+"/main.go"), cmdReq("s1", "git status"),
		cmdReq("s1", "protoc --go_out=. api.proto")} // ALLOW, fast-path ALLOW, ESCALATE
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(Config{Workspace: testWS, Home: testHome, Audit: tt.audit(t)})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range reqs {
				v := g.Evaluate(context.Background(), r)
				if v.Decision != verdict.Block || v.Rule != RuleAuditError {
					t.Errorf("%s: got %v %s (%s), want BLOCK %s", r.Payload, v.Decision, v.Rule, v.Reason, RuleAuditError)
				}
			}
		})
	}
}

// faultyStore is a memory store whose taint reads fail from the failFrom-th
// one on (1-based; 0: never).
type faultyStore struct {
	*ifc.MemoryStore
	mu       sync.Mutex
	failFrom int
	reads    int
}

func (s *faultyStore) MaxTaint(ctx context.Context, session string) (ifc.Level, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.failFrom > 0 && s.reads >= s.failFrom {
		return ifc.Public, "", errors.New("injected taint store fault")
	}
	return s.MemoryStore.MaxTaint(ctx, session)
}

// TestTaintStoreErrorClosesFastPath: a session whose taint cannot be read
// is treated as tainted: the fast path is closed to it, and the action
// goes through the full pipeline.
func TestTaintStoreErrorClosesFastPath(t *testing.T) {
	for _, cmd := range []string{"git status", "go test ./...", "go vet ./..."} {
		t.Run(cmd, func(t *testing.T) {
			st := &faultyStore{MemoryStore: ifc.NewMemoryStore()}
			g, err := New(Config{Workspace: testWS, Home: testHome, Store: st})
			if err != nil {
				t.Fatal(err)
			}
			if v := g.Evaluate(context.Background(), cmdReq("s1", cmd)); v.Stage != verdict.StageFastPath {
				t.Fatalf("healthy store: got %v at %s, want the fast path", v.Decision, v.Stage)
			}
			st.mu.Lock()
			st.failFrom = st.reads + 1
			st.mu.Unlock()
			if !g.tainted(context.Background(), "s1") {
				t.Errorf("tainted: got false on a store error, want true")
			}
			v := g.Evaluate(context.Background(), cmdReq("s1", cmd))
			if v.Stage == verdict.StageFastPath || v.Rule == RuleFastPath {
				t.Errorf("got %v at %s (%s), want the fast path closed", v.Decision, v.Stage, v.Rule)
			}
		})
	}
}

// taintJudge is a tier 2 that records the taint it was given.
type taintJudge struct{ taints []string }

func (j *taintJudge) Evaluate(_ context.Context, in verdict.JudgeInput) verdict.Verdict {
	j.taints = append(j.taints, in.Taint)
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageJudge, Tier: 2, Rule: "fake_judge",
		Reason: "scripted", Hash: in.Hash}
}

// TestUnknownTaintReachesJudgeAsCritical: when the session's taint cannot
// be read for the judge, the judge is told the worst (critical), never
// public. The store fails only the last read, the judge's own (the IFC
// stage before it blocks on a failed read by itself).
func TestUnknownTaintReachesJudgeAsCritical(t *testing.T) {
	req := cmdReq("s1", "protoc --go_out=. api.proto") // unknown program: escalated to tier 2
	count := &faultyStore{MemoryStore: ifc.NewMemoryStore()}
	g, err := New(Config{Workspace: testWS, Home: testHome, Store: count, Judge: &taintJudge{}})
	if err != nil {
		t.Fatal(err)
	}
	g.Evaluate(context.Background(), req)
	reads := count.reads
	if reads == 0 {
		t.Fatal("the taint was never read")
	}
	tests := []struct {
		name     string
		session  string
		failFrom int
		want     string
	}{
		{"judge's read fails", "s1", reads, ifc.Critical.String()},
		{"healthy, untainted", "s1", 0, ifc.Public.String()},
		{"no session", "", 1, ifc.Public.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &faultyStore{MemoryStore: ifc.NewMemoryStore(), failFrom: tt.failFrom}
			j := &taintJudge{}
			g, err := New(Config{Workspace: testWS, Home: testHome, Store: st, Judge: j})
			if err != nil {
				t.Fatal(err)
			}
			r := req
			r.Session = tt.session
			v := g.Evaluate(context.Background(), r)
			if len(j.taints) != 1 {
				t.Fatalf("the judge was asked %d times (verdict %v %s: %s), want once", len(j.taints), v.Decision, v.Rule, v.Reason)
			}
			if j.taints[0] != tt.want {
				t.Errorf("got taint %q sent to the judge, want %q", j.taints[0], tt.want)
			}
		})
	}
}

// answerApprover answers every escalation with a fixed verdict or error.
type answerApprover struct {
	v   verdict.Verdict
	err error
	n   int
}

func (a *answerApprover) Approve(context.Context, Escalation) (verdict.Verdict, error) {
	a.n++
	return a.v, a.err
}

// TestApproverWithoutAnswerBlocks: an approver that passes the ESCALATE
// back (nobody could answer) or fails ends as a BLOCK; its ALLOW and
// BLOCK stand.
func TestApproverWithoutAnswerBlocks(t *testing.T) {
	tests := []struct {
		name     string
		approver answerApprover
		want     verdict.Decision
		rule     string
	}{
		{"escalate passed through", answerApprover{v: verdict.Verdict{Decision: verdict.Escalate, Rule: "x", Reason: "nobody"}},
			verdict.Block, RuleApprovalError},
		{"zero verdict", answerApprover{}, verdict.Block, ""},
		{"error", answerApprover{err: errors.New("broker closed")}, verdict.Block, RuleApprovalError},
		{"error with allow", answerApprover{v: verdict.Verdict{Decision: verdict.Allow}, err: errors.New("late")},
			verdict.Block, RuleApprovalError},
		{"allow", answerApprover{v: verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StageHuman, Rule: "human"}},
			verdict.Allow, "human"},
		{"block", answerApprover{v: verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageHuman, Rule: "human"}},
			verdict.Block, "human"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.approver
			g, err := New(Config{Workspace: testWS, Home: testHome, Approver: &a})
			if err != nil {
				t.Fatal(err)
			}
			v := g.Evaluate(context.Background(), cmdReq("s1", "protoc --go_out=. api.proto"))
			if a.n != 1 {
				t.Fatalf("the approver was asked %d times, want once", a.n)
			}
			if v.Decision != tt.want || tt.rule != "" && v.Rule != tt.rule {
				t.Errorf("got %v %s (%s), want %v %s", v.Decision, v.Rule, v.Reason, tt.want, tt.rule)
			}
		})
	}
}
