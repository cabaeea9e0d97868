package workspace

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

func diskFull(context.Context, string, int, string) error {
	return errors.New("database or disk is full")
}

// fullGate is a gate whose database cannot write taint (a full disk), as
// one hook process would build it.
func fullGate(t *testing.T, root string) (*shield.Gate, *Workspace) {
	t.Helper()
	w, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	st := ifcStore{db: w.DB, journal: TaintJournalPath(root), raise: diskFull}
	g, err := shield.New(shield.Config{Workspace: root, Home: "/home/dev", Store: st, Audit: w.Audit})
	if err != nil {
		t.Fatal(err)
	}
	return g, w
}

// A hook process that cannot write a taint to the database leaves it in
// the journal: the next process refuses to send while the database still
// cannot take it, and records it (and still refuses the session) once it
// can.
func TestTaintJournalOutlivesTheProcess(t *testing.T) {
	root := initWorkspace(t)
	ctx := context.Background()
	const secret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"
	send := shield.Request{Session: "s1", Type: "send_email", Payload: []byte(`{"to":"a@example.com","subject":"s","body":"hi"}`)}

	g1, w1 := fullGate(t, root)
	if err := g1.Observe(ctx, shield.Request{Session: "s1", Type: "execute_command", Payload: cmd("cat notes.txt"), Result: secret}); err != nil {
		t.Logf("observe on a full disk: %v", err)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if lines, err := pendingLines(root); err != nil || lines == "" {
		t.Fatalf("the taint journal is empty after a raise the database refused (%v)", err)
	}

	g2, w2 := fullGate(t, root) // the next call, disk still full
	for _, s := range []string{"s1", "s2"} {
		r := send
		r.Session = s
		if v := g2.Evaluate(ctx, r); v.Decision != verdict.Block {
			t.Errorf("disk still full, %s sends: got %v (%s), want BLOCK", s, v.Decision, v.Reason)
		}
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}

	g3, w3 := gateFor(t, root) // space is back
	defer w3.Close()
	if v := g3.Evaluate(ctx, send); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("space back, s1 sends: got %v at %s (%s), want an IFC BLOCK", v.Decision, v.Stage, v.Reason)
	}
	if lvl, _, err := w3.IFCStore().MaxTaint(ctx, "s1"); err != nil || lvl < ifc.Restricted {
		t.Errorf("space back: s1 is %v (%v), want its taint recorded", lvl, err)
	}
	if lines, err := pendingLines(root); err != nil || lines != "" {
		t.Errorf("the journal was not emptied once replayed (%v)", err)
	}
}

// pendingLines is what the taint journal of the workspace at root holds:
// its lines, up to the room written ahead.
func pendingLines(root string) (string, error) {
	b, err := os.ReadFile(TaintJournalPath(root))
	return string(b[:usedBytes(b)]), err
}

// A raise is written over the room the journal holds ahead, never past
// it (which a full disk refuses), and a replay zeroes it again, keeping
// the room; a line after a torn one starts a line of its own.
func TestTaintJournalCannotGrowToTakeARaise(t *testing.T) {
	root := freshWorkspace(t)
	path := TaintJournalPath(root)
	st, err := os.Stat(path)
	if err != nil || st.Size() < journalSize || !allocated(st) {
		t.Fatalf("after init the journal is %v (%v), want %d bytes written ahead", st, err, journalSize)
	}
	for _, s := range []string{"s1", "s2"} {
		if err := JournalTaint(root, s, 4, "result of Bash"); err != nil {
			t.Fatal(err)
		}
	}
	if after, err := os.Stat(path); err != nil || after.Size() != st.Size() {
		t.Errorf("the journal grew from %d to %v (%v) to take two raises", st.Size(), after, err)
	}
	if lines, _ := pendingLines(root); strings.Count(lines, "\n") != 2 {
		t.Errorf("journal lines: got %q, want 2", lines)
	}
	var raised []string
	record := func(_ context.Context, s string, _ int, _ string) error { raised = append(raised, s); return nil }
	if err := replayJournal(context.Background(), path, record); err != nil || len(raised) != 2 {
		t.Fatalf("replay: got %v (%v), want s1 and s2", raised, err)
	}
	if lines, _ := pendingLines(root); lines != "" {
		t.Errorf("after the replay the journal holds %q", lines)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(`{"session":"s3","le`), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := JournalTaint(root, "s4", 4, "result of Bash"); err != nil {
		t.Fatal(err)
	}
	if lines, _ := pendingLines(root); !strings.HasSuffix(lines, "\n"+`{"session":"s4","level":4,"source":"result of Bash"}`+"\n") {
		t.Errorf("after a torn line: got %q, want the raise on a line of its own", lines)
	}
}
