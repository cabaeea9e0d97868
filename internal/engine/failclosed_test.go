package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// These tests prove the pipeline's fail-closed branches: each fails when
// the check it names is removed (issue 19, item 6).

// failingAudit refuses the entries of the given types and appends the
// others to the real chain.
type failingAudit struct {
	next shield.Appender
	fail map[audit.EventType]bool
}

func (a failingAudit) Append(ctx context.Context, e audit.Event) (audit.Entry, error) {
	if a.fail[e.Type] {
		return audit.Entry{}, errors.New("disk full")
	}
	return a.next.Append(ctx, e)
}

func failAudit(types ...audit.EventType) func(Config) Config {
	return func(c Config) Config {
		f := failingAudit{next: c.Audit, fail: map[audit.EventType]bool{}}
		for _, t := range types {
			f.fail[t] = true
		}
		c.Audit = f
		return c
	}
}

// An action whose ActionStarted entry cannot be written does not run.
func TestActionCannotRunWithoutItsStartAudited(t *testing.T) {
	e := newEnv(t, envOptions{wrap: failAudit(audit.ActionStarted)})
	out := e.handle("s1", "list_directory", map[string]any{"path": e.root})
	if out.Verdict.Decision != verdict.Block || out.Verdict.Rule != RuleAuditError || out.Executed {
		t.Fatalf("got %v %s executed=%v, want a %s BLOCK, not executed", out.Verdict.Decision, out.Verdict.Rule, out.Executed, RuleAuditError)
	}
	if got := e.executed(); len(got) != 0 {
		t.Errorf("the executor ran: %v", got)
	}
}

// A result whose ActionExecuted entry cannot be written is withheld: the
// agent reads an error, never the content.
func TestResultCannotReachTheAgentWithoutItsAuditEntry(t *testing.T) {
	e := newEnv(t, envOptions{wrap: failAudit(audit.ActionExecuted, audit.ActionFailed)})
	path := filepath.Join(e.root, "notes.txt")
	writeFile(t, path, "zebra-quartz-content\n")
	out := e.handle("s1", "read_file", map[string]any{"path": path})
	if !out.Result.IsError || !strings.Contains(out.Result.Output, RuleAuditError) {
		t.Fatalf("got %q, want an error result naming %s", out.Result.Output, RuleAuditError)
	}
	if strings.Contains(out.Result.Output, "zebra-quartz") {
		t.Error("the unaudited result reached the agent")
	}
	if out.Audited {
		t.Error("the outcome says audited although its entry failed")
	}
}

// observeFailGate decides as the real gate but cannot classify results.
type observeFailGate struct{ Gate }

func (observeFailGate) ObserveReport(context.Context, shield.Request) (shield.Observation, error) {
	return shield.Observation{}, errors.New("classifier unavailable")
}

// A result the gate cannot classify is withheld from the agent.
func TestUnclassifiableResultCannotReachTheAgent(t *testing.T) {
	e := newEnv(t, envOptions{wrap: func(c Config) Config { c.Gate = observeFailGate{c.Gate}; return c }})
	path := filepath.Join(e.root, "notes.txt")
	writeFile(t, path, "zebra-quartz-content\n")
	out := e.handle("s1", "read_file", map[string]any{"path": path})
	if !out.Executed || !out.Result.IsError || !strings.Contains(out.Result.Output, RuleObserveError) {
		t.Fatalf("got %q, want an error result naming %s", out.Result.Output, RuleObserveError)
	}
	if strings.Contains(out.Result.Output, "zebra-quartz") {
		t.Error("the unclassified result reached the agent")
	}
	var failed bool
	for _, en := range e.entries() {
		failed = failed || en.Type == audit.ActionFailed && en.Rule == RuleObserveError
	}
	if !failed {
		t.Errorf("no ActionFailed %s entry", RuleObserveError)
	}
}
