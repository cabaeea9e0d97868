package shield

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/verdict"
)

// errDiskFull is what a store on a full disk answers to a write.
var errDiskFull = errors.New("database or disk is full")

// fullStore is a store on a disk that may fill up: while full, every
// write fails and reads work (as SQLite behaves). budget, when not
// negative, is how many writes still succeed before the disk is full.
type fullStore struct {
	*ifc.MemoryStore
	mu     sync.Mutex
	full   bool
	budget int
}

func newFullStore() *fullStore { return &fullStore{MemoryStore: ifc.NewMemoryStore(), budget: -1} }

func (s *fullStore) setFull(full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.full, s.budget = full, -1
}

// write reports whether one more write may land.
func (s *fullStore) write() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.budget == 0 {
		s.full, s.budget = true, -1
	}
	if s.budget > 0 {
		s.budget--
	}
	if s.full {
		return errDiskFull
	}
	return nil
}

func (s *fullStore) RaiseTaint(ctx context.Context, session string, level ifc.Level, source string) error {
	if err := s.write(); err != nil {
		return err
	}
	return s.MemoryStore.RaiseTaint(ctx, session, level, source)
}

func (s *fullStore) SetParent(ctx context.Context, child, parent string) error {
	if err := s.write(); err != nil {
		return err
	}
	return s.MemoryStore.SetParent(ctx, child, parent)
}

func (s *fullStore) UpsertActivity(ctx context.Context, a ifc.Activity) error {
	if err := s.write(); err != nil {
		return err
	}
	return s.MemoryStore.UpsertActivity(ctx, a)
}

var _ ifc.Store = (*fullStore)(nil)

const secretResult = "GITHUB_TOKEN=ghp_MxEhh2FDEEtfjgVvVqE1SkHbn88HxjSI6bWH"

func sendMail(session, parent string) Request {
	return Request{Session: session, Parent: parent, Type: "send_email",
		Payload: json.RawMessage(`{"to":"a@example.com","subject":"s","body":"hi"}`)}
}

// A full disk during an observe loses no taint: the workspace is refused
// until the taint lands, and once space is back the session still may not
// send.
func TestObserveOnFullDiskKeepsTheTaint(t *testing.T) {
	ws := t.TempDir() // the unrecorded set is per workspace and process-wide
	st := newFullStore()
	g, err := New(Config{Workspace: ws, Home: testHome, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st.setFull(true)
	err = g.Observe(ctx, Request{Session: "s1", Type: "execute_command", Payload: json.RawMessage(cmdPayload("cat notes.txt")),
		Result: secretResult})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("observe on a full disk: got %v, want the store's error", err)
	}
	if lvl, _, _ := st.MaxTaint(ctx, "s1"); lvl != ifc.Public {
		t.Fatalf("the store holds %v for s1 while full", lvl)
	}
	// A gate built later in the same process (a new hook call in the
	// daemon) refuses too.
	g2, err := New(Config{Workspace: ws, Home: testHome, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Request{
		"the session sends":         sendMail("s1", ""),
		"a sub-agent sends":         sendMail("s1-child", "s1"),
		"another session runs code": {Session: "s2", Type: "execute_command", Payload: json.RawMessage(cmdPayload("git status"))},
	} {
		for gn, gate := range map[string]*Gate{"same gate": g, "new gate": g2} {
			if v := gate.Evaluate(ctx, r); v.Decision != verdict.Block || v.Rule != RuleTaintUnrecorded {
				t.Errorf("disk full, %s, %s: got %v %s (%s), want BLOCK %s", name, gn, v.Decision, v.Rule, v.Reason, RuleTaintUnrecorded)
			}
		}
	}

	st.setFull(false) // space is back
	v := g.Evaluate(ctx, sendMail("s1", ""))
	if v.Decision != verdict.Block || v.Stage != verdict.StageIFC || v.Rule == RuleTaintUnrecorded {
		t.Errorf("space back, s1 sends: got %v at %s %s (%s), want a BLOCK by the session's taint", v.Decision, v.Stage, v.Rule, v.Reason)
	}
	if lvl, _, err := st.MaxTaint(ctx, "s1"); err != nil || lvl != ifc.Critical {
		t.Errorf("space back: s1's stored taint is %v (%v), want critical", lvl, err)
	}
	if v := g2.Evaluate(ctx, sendMail("s1-child", "s1")); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("space back, a sub-agent of s1 sends: got %v at %s %s", v.Decision, v.Stage, v.Rule)
	}
	if v := g.Evaluate(ctx, Request{Session: "s2", Type: "execute_command", Payload: json.RawMessage(cmdPayload("git status"))}); v.Decision != verdict.Allow {
		t.Errorf("space back, an untainted session runs git status: got %v %s (%s)", v.Decision, v.Rule, v.Reason)
	}
}

// The taint is the first write of an observation: when the disk fills up
// after one write, it is the taint that landed, not the sub-agent link.
func TestObserveRaisesTheTaintFirst(t *testing.T) {
	st := newFullStore()
	g, err := New(Config{Workspace: t.TempDir(), Home: testHome, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st.mu.Lock()
	st.budget = 1
	st.mu.Unlock()
	err = g.Observe(ctx, Request{Session: "child", Parent: "parent", Type: "execute_command",
		Payload: json.RawMessage(cmdPayload("cat notes.txt")), Result: secretResult})
	if err == nil {
		t.Fatal("observe with a disk that filled up: no error")
	}
	if lvl, _, _ := st.MaxTaint(ctx, "child"); lvl < ifc.Restricted {
		t.Errorf("the one write that landed left child at %v: the taint was not written first", lvl)
	}
}

// An observation that fails for another reason than the taint (here the
// action does not decode) leaves the session critical.
func TestObserveFailureTaintsCritical(t *testing.T) {
	st := newFullStore()
	g, err := New(Config{Workspace: t.TempDir(), Home: testHome, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := g.Observe(ctx, Request{Session: "s1", Type: "no_such_type", Payload: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("an action that does not decode must be an error")
	}
	if lvl, src, _ := st.MaxTaint(ctx, "s1"); lvl != ifc.Critical || src != SourceUnrecorded {
		t.Errorf("after a failed observe s1 is %v (%s), want critical (%s)", lvl, src, SourceUnrecorded)
	}
}
