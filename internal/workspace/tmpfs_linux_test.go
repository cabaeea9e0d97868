package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/internal/testfs"
	"github.com/parallax/parallax/shield"
	"github.com/parallax/parallax/verdict"
)

// On a really full filesystem a hook process cannot write a taint to the
// database, but the room reserved for the journal takes it: the next
// process, once there is space, records it and refuses the session's
// sends.
func TestTaintJournalOnAFullFilesystem(t *testing.T) {
	mnt := testfs.MountSmall(t, "TestTaintJournalOutlivesTheProcess")
	root := filepath.Join(mnt, "ws")
	if err := os.MkdirAll(StateDir(root), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const secret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"
	g1, w1 := gateFor(t, root)
	filler := testfs.Fill(t, mnt)
	err := g1.Observe(ctx, shield.Request{Session: "s1", Type: "execute_command", Payload: cmd("cat notes.txt"), Result: secret})
	t.Logf("observe on a full filesystem: %v", err)
	if lines, err := pendingLines(root); err != nil || lines == "" {
		t.Errorf("the taint journal is empty on a full filesystem (%v): its reserve did not take the raise", err)
	}
	if cerr := w1.Close(); cerr != nil {
		t.Logf("close on a full filesystem: %v", cerr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}

	g2, w2 := gateFor(t, root) // the next hook process
	defer w2.Close()
	send := shield.Request{Session: "s1", Type: "send_email", Payload: []byte(`{"to":"a@example.com","subject":"s","body":"hi"}`)}
	if v := g2.Evaluate(ctx, send); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("the next process, s1 sends: got %v at %s (%s), want an IFC BLOCK", v.Decision, v.Stage, v.Reason)
	}
	if lvl, _, err := w2.IFCStore().MaxTaint(ctx, "s1"); err != nil || lvl < ifc.Restricted {
		t.Errorf("s1 is %v (%v) in the next process, want its taint recorded", lvl, err)
	}
	if lines, err := pendingLines(root); err != nil || lines != "" {
		t.Errorf("the journal was not replayed and emptied (%v)", err)
	}
}
