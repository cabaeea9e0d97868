package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// testKey is a private key block as DLP knows them (not a real key).
const testKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
	"QyNTUxOQAAACDh1vNqJ0sS8cQ2b4f0wM9YkZqN7r8tP3xVb6uLwE2yJgAAAJgr8Vx7K/Fc\n" +
	"-----END OPENSSH PRIVATE KEY-----\n"

// testToken is a GitHub token as DLP knows them (not a real token).
const testToken = "ghp_R8bX2kLq9ZtV4mNw7YhC3pJd6FsG1aEu5TzK"

// env is a real workspace (init, SQLite, audit chain), a home with an
// SSH key, and a pipeline with recording executors.
type env struct {
	t         testing.TB
	root      string
	home      string
	ws        *workspace.Workspace
	gate      *shield.Gate
	p         *Pipeline
	mu        sync.Mutex
	ran       []string // "type path-or-command" of every executor entry
	executors map[action.Type]Executor
}

type envOptions struct {
	approver shield.Approver
	// approverFor builds tier 3 over the open workspace (a real broker).
	approverFor func(ws *workspace.Workspace) shield.Approver
	redact      bool
	executors   map[action.Type]Executor // replace or add
	// tools, when set, gives Open the real files and shell executors
	// (Options.Tools) in place of the recording ones; executors still
	// replace or add.
	tools *ToolsConfig
	wrap  func(Config) Config // change the pipeline config
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, root: t.TempDir(), home: t.TempDir()}
	if _, err := workspace.Init(ctx, e.root, workspace.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), testKey)
	ws, err := workspace.Open(ctx, e.root)
	if err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	t.Cleanup(func() {
		if err := ws.Close(); err != nil {
			t.Error(err)
		}
	})
	e.executors = map[action.Type]Executor{
		action.ReadFile:       ExecutorFunc(e.readFile),
		action.WriteFile:      ExecutorFunc(e.writeFile),
		action.ListDirectory:  e.record("listed"),
		action.ExecuteCommand: e.record("ran"),
		action.HTTPRequest:    e.record("200 OK"),
	}
	if o.tools != nil {
		e.executors = map[action.Type]Executor{}
	}
	for k, v := range o.executors {
		e.executors[k] = v
	}
	if o.approverFor != nil {
		o.approver = o.approverFor(ws)
	}
	p, g, err := Open(ws, Options{Home: e.home, Approver: o.approver, Executors: e.executors, Tools: o.tools, Redact: o.redact})
	if err != nil {
		t.Fatal(err)
	}
	e.p, e.gate = p, g
	if o.wrap != nil {
		if e.p, err = New(o.wrap(p.cfg)); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) note(act *action.Action) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := string(act.Type)
	for _, pf := range act.Payload.PathFields() {
		s += " " + *pf.Path
	}
	if code := action.ShellCode(act); code != "" {
		s += " " + code
	}
	e.ran = append(e.ran, s)
}

func (e *env) executed() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ran...)
}

func (e *env) record(out string) Executor {
	return ExecutorFunc(func(_ context.Context, c Call) (Result, error) {
		e.note(c.Action)
		return Result{Output: out}, nil
	})
}

func (e *env) readFile(_ context.Context, c Call) (Result, error) {
	act := c.Action
	e.note(act)
	b, err := os.ReadFile(act.Payload.(*action.ReadFilePayload).Path)
	if err != nil {
		return Result{}, err
	}
	return Result{Output: string(b)}, nil
}

func (e *env) writeFile(_ context.Context, c Call) (Result, error) {
	act := c.Action
	e.note(act)
	p := act.Payload.(*action.WriteFilePayload)
	if err := os.WriteFile(p.Path, []byte(p.Content), 0o600); err != nil {
		return Result{}, err
	}
	return Result{Output: "wrote " + p.Path}, nil
}

// handle proposes one action.
func (e *env) handle(session, typ string, payload any) Outcome {
	e.t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.p.Handle(context.Background(), Proposal{Session: session, CallID: "call-1", Type: typ, Payload: b})
}

// entries reads the audit chain after verifying it whole.
func (e *env) entries() []audit.Entry {
	e.t.Helper()
	if _, err := workspace.VerifyChain(e.root); err != nil {
		e.t.Fatalf("audit chain does not verify: %v", err)
	}
	var out []audit.Entry
	if err := audit.Scan(audit.DefaultPath(e.root), audit.Filter{}, func(en audit.Entry) error {
		out = append(out, en)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// typesAfter lists the event types of the entries after seq.
func typesAfter(es []audit.Entry, seq uint64) []audit.EventType {
	var out []audit.EventType
	for _, en := range es {
		if en.Seq > seq {
			out = append(out, en.Type)
		}
	}
	return out
}

func lastSeq(es []audit.Entry) uint64 {
	if len(es) == 0 {
		return 0
	}
	return es[len(es)-1].Seq
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// stubApprover answers every escalation the same way.
type stubApprover struct {
	allow bool
	err   error
	n     int
	mu    sync.Mutex
}

func (a *stubApprover) Approve(_ context.Context, esc shield.Escalation) (v verdict.Verdict, err error) {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
	if a.err != nil {
		return v, a.err
	}
	if a.allow {
		return verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StageHuman, Tier: 3, Rule: "test_human", Hash: esc.Hash}, nil
	}
	return verdict.Verdict{Decision: verdict.Block, Stage: verdict.StageHuman, Tier: 3, Rule: "test_human", Hash: esc.Hash}, nil
}

var errNoHuman = errors.New("approval timed out")
