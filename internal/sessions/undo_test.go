package sessions

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/gateway/snapshot"
)

// snap takes a Chronicle snapshot of rel paths the way the engine does
// before a call runs (snapshot.Taker: Chronicle plus its audit entry) and
// notes it for the turn.
func (e *env) snap(t *testing.T, session, turn string, rel ...string) int64 {
	t.Helper()
	ctx := context.Background()
	var abs []string
	for _, r := range rel {
		abs = append(abs, filepath.Join(e.root, r))
	}
	tk := snapshot.Taker{WS: e.ws, Event: audit.Event{Session: session, ActionType: "write_file"}, Code: "snapshot_taken"}
	id, err := tk.Take(ctx, "write_file", abs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.m.NoteSnapshot(ctx, session, turn, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *env) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// state reads the files of the workspace outside .parallax.
func (e *env) state(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(e.root, p)
		if d.IsDir() {
			if rel == ".parallax" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameState(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestUndoRestoresTheLastTurn: two turns change files (the second one
// changes one file twice, creates one and deletes one); /undo restores
// the second turn byte for byte, a second /undo the first, a third has
// nothing left. Another session's turn is not touched.
func TestUndoRestoresTheLastTurn(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.write(t, "a.txt", "one\n")
	e.write(t, "keep/c.txt", "original c\x00\xff binary\n")
	e.write(t, "x.txt", "x before\n")
	s := mustNew(t, e.m, false)
	other := mustNew(t, e.m, false)
	before := e.state(t)

	t1, err := e.m.StartTurn(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.snap(t, s.ID, t1, "x.txt")
	e.write(t, "x.txt", "x after turn 1\n")
	afterTurn1 := e.state(t)

	t2, err := e.m.StartTurn(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.snap(t, s.ID, t2, "a.txt", "new/deep/n.txt")
	e.write(t, "a.txt", "two\n")
	e.write(t, "new/deep/n.txt", "created\n")
	e.snap(t, s.ID, t2, "a.txt", "keep/c.txt")
	e.write(t, "a.txt", "three\n")
	if err := os.Remove(filepath.Join(e.root, "keep/c.txt")); err != nil {
		t.Fatal(err)
	}
	// A turn of another session that must survive /undo in this one.
	t3, err := e.m.StartTurn(ctx, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.snap(t, other.ID, t3, "o.txt")

	steps := []struct {
		want     map[string][]byte
		nothing  bool
		restored int // rollback entries of this session so far
	}{
		{afterTurn1, false, 2},
		{before, false, 3},
		{before, true, 3},
	}
	for i, st := range steps {
		res := mustCommand(t, e.m, s.ID, "undo")
		if got := e.state(t); !sameState(got, st.want) {
			t.Errorf("undo %d: files %v, want %v", i+1, keys(got), keys(st.want))
			for k, v := range st.want {
				if !bytes.Equal(got[k], v) {
					t.Errorf("undo %d: %s is %q, want %q", i+1, k, got[k], v)
				}
			}
		}
		if lt, _, _ := e.m.lastTurn(ctx, s.ID); st.nothing && lt.Snapshots != nil {
			t.Errorf("undo %d: snapshots left to undo: %v", i+1, lt.Snapshots)
		}
		if res.Text == "" {
			t.Errorf("undo %d: no text", i+1)
		}
		rb := e.entries(t, audit.Filter{Session: s.ID, Type: audit.TransactionRollback})
		if len(rb) != st.restored {
			t.Errorf("undo %d: %d TransactionRollback entries, want %d", i+1, len(rb), st.restored)
		}
		for _, en := range rb {
			if en.Detail.Code != "chronicle_rollback" {
				t.Errorf("undo %d: rollback entry code %q, want chronicle_rollback", i+1, en.Detail.Code)
			}
		}
	}
	if lt, _, err := e.m.lastTurn(ctx, other.ID); err != nil || lt.ID != t3 || len(lt.Snapshots) != 1 {
		t.Errorf("the other session's turn: got %q %v %v, want %s with one snapshot", lt.ID, lt.Snapshots, err, t3)
	}
	e.verifyChain(t)
}

// TestUndoRefusesAMissingSnapshot: a turn whose snapshot is gone (pruned)
// restores nothing, not even its other snapshots, and stays undoable.
func TestUndoRefusesAMissingSnapshot(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.write(t, "a.txt", "one\n")
	s := mustNew(t, e.m, false)
	turn, err := e.m.StartTurn(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.snap(t, s.ID, turn, "a.txt")
	e.write(t, "a.txt", "two\n")
	if err := e.m.NoteSnapshot(ctx, s.ID, turn, 999); err != nil {
		t.Fatal(err)
	}
	if _, err := e.m.Command(ctx, s.ID, "undo", nil); err == nil {
		t.Fatal("undo with a missing snapshot succeeded")
	}
	if got := e.state(t)["a.txt"]; string(got) != "two\n" {
		t.Errorf("a.txt: got %q, want it untouched (\"two\\n\")", got)
	}
	if got, _, _ := e.m.lastTurn(ctx, s.ID); got.ID != turn {
		t.Errorf("the turn is no longer undoable: got %q, want %q", got.ID, turn)
	}
	if n := len(e.entries(t, audit.Filter{Type: audit.TransactionRollback})); n != 0 {
		t.Errorf("%d rollback entries, want none", n)
	}
}

func TestNoteSnapshotErrors(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	s := mustNew(t, e.m, false)
	o := mustNew(t, e.m, true)
	turn, err := e.m.StartTurn(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, session, turn string
		snap                int64
		want                error
	}{
		{"unknown turn", s.ID, "nope", 1, ErrNotFound},
		{"unknown OTR turn", o.ID, "nope", 1, ErrNotFound},
		{"unknown session", "nope", turn, 1, ErrNotFound},
		{"zero snapshot", s.ID, turn, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.m.NoteSnapshot(ctx, tc.session, tc.turn, tc.snap)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("got %v, want an error (%v)", err, tc.want)
			}
		})
	}
	if _, err := e.m.StartTurn(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("turn of an unknown session: got %v, want ErrNotFound", err)
	}
}

// TestUndoNamesWhatItCannotRestore: /undo of a turn that pushed and
// wrote outside the workspace restores its files and says, to the user
// and to the model, what stays done; a turn whose effects were all in
// its snapshots says nothing lies outside them; a turn that only did
// what no snapshot covers is undone with nothing restored and says why.
// The same holds off the record.
func TestUndoNamesWhatItCannotRestore(t *testing.T) {
	for _, otr := range []bool{false, true} {
		e := newEnv(t, nil)
		ctx := context.Background()
		e.write(t, "a.txt", "one\n")
		s := mustNew(t, e.m, otr)
		push := Effect{Kind: EffectNetwork, Subject: "127.0.0.1:9418"}
		wrote := Effect{Kind: EffectWrite, Subject: "/home/u/.config/tool/settings"}

		covered, err := e.m.StartTurn(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.snap(t, s.ID, covered, "a.txt")
		e.write(t, "a.txt", "two\n")

		only, err := e.m.StartTurn(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.m.NoteEffects(ctx, s.ID, only, []Effect{push}); err != nil {
			t.Fatal(err)
		}

		both, err := e.m.StartTurn(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.snap(t, s.ID, both, "a.txt")
		e.write(t, "a.txt", "three\n")
		if err := e.m.NoteEffects(ctx, s.ID, both, []Effect{wrote, push, wrote}); err != nil {
			t.Fatal(err)
		}
		if err := e.m.NoteEffects(ctx, s.ID, both, []Effect{{Kind: "exec", Subject: "x"}}); err == nil {
			t.Errorf("otr=%v: an unknown kind of effect was noted", otr)
		}

		res := mustCommand(t, e.m, s.ID, "undo")
		if got := string(e.state(t)["a.txt"]); got != "two\n" {
			t.Errorf("otr=%v: a.txt after the first /undo: %q", otr, got)
		}
		notice := e.m.TakeNotice(s.ID)
		for _, text := range []string{res.Text, notice} {
			if !containsAll(strings.ToLower(text), "a.txt", "not restored", wrote.Subject, push.Subject, "push") {
				t.Errorf("otr=%v: the first /undo does not name what stays done: %q", otr, text)
			}
		}
		res = mustCommand(t, e.m, s.ID, "undo")
		if !containsAll(res.Text, "nothing was restored", push.Subject) || containsAll(res.Text, wrote.Subject) {
			t.Errorf("otr=%v: the second /undo (a turn with only a push): %q", otr, res.Text)
		}
		if notice := e.m.TakeNotice(s.ID); !containsAll(notice, push.Subject) {
			t.Errorf("otr=%v: the model is not told the push stays: %q", otr, notice)
		}
		res = mustCommand(t, e.m, s.ID, "undo")
		if got := string(e.state(t)["a.txt"]); got != "one\n" || !containsAll(res.Text, "nothing outside the snapshots") {
			t.Errorf("otr=%v: the third /undo: a.txt %q, text %q", otr, got, res.Text)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestUndoSaysWhatItDidPerPath: a go get changes go.mod and creates
// go.sum; the snapshot also kept go.work, absent before and after. /undo
// names go.mod as written back, go.sum as removed and go.work as already
// as before, not all three as restored.
func TestUndoSaysWhatItDidPerPath(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.write(t, "go.mod", "module w\n")
	s := mustNew(t, e.m, false)
	turn, err := e.m.StartTurn(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.snap(t, s.ID, turn, "go.mod", "go.sum", "go.work")
	e.write(t, "go.mod", "module w\n\nrequire example.com/dep v1.0.0\n")
	e.write(t, "go.sum", "example.com/dep v1.0.0 h1:x\n")
	res := mustCommand(t, e.m, s.ID, "undo")
	if _, ok := e.state(t)["go.sum"]; ok {
		t.Fatal("go.sum is still there")
	}
	for _, want := range []string{"written back: go.mod", "removed: go.sum", "already as before it: go.work"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("/undo text lacks %q: %q", want, res.Text)
		}
	}
}
