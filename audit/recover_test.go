package audit

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// appendTorn adds the first half of a well-formed next entry, as a crash
// in the middle of a write would, and returns those bytes.
func appendTorn(t *testing.T, path string) []byte {
	t.Helper()
	lf := readFiles(t, path)
	e := Entry{Version: Version, Seq: uint64(len(lf.lines) + 1), Type: ActionProposed, Prev: Genesis}
	if len(lf.lines) > 0 {
		e.Prev = lf.entry(t, len(lf.lines)).Hash
	}
	line := encodeLine(nil, &e)
	torn := line[:len(line)/2]
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(torn); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return torn
}

func TestRecoverTornTail(t *testing.T) {
	path := writeLog(t, 5)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := appendTorn(t, path)

	_, err = Open(path, Options{})
	ce, ok := AsChainError(err)
	if !ok || ce.Code != CodeTornTail || ce.Offset != st.Size() || ce.Line != 6 || ce.Seq != 6 {
		t.Fatalf("open: got %v, want torn_tail at line 6, byte %d", err, st.Size())
	}
	if _, err := Verify(path, VerifyOptions{}); !hasCode(err, CodeTornTail) {
		t.Errorf("verify: got %v, want torn_tail", err)
	}

	rec, err := Recover(path, Options{Clock: newClock().Now})
	if err != nil {
		t.Fatalf("recover: %v", err)
	}
	if rec.Offset != st.Size() || rec.Length != int64(len(torn)) {
		t.Errorf("got offset %d length %d, want %d %d", rec.Offset, rec.Length, st.Size(), len(torn))
	}
	saved, err := os.ReadFile(rec.TornFile)
	if err != nil || !bytes.Equal(saved, torn) {
		t.Errorf("torn file %s: got %q, %v; want the torn bytes", rec.TornFile, saved, err)
	}
	if rec.TornFile != path+".torn-1" {
		t.Errorf("got torn file %s, want %s.torn-1", rec.TornFile, path)
	}
	e := rec.Entry
	if e.Type != IntegrityViolation || e.Seq != 6 || e.Detail.Code != "torn_tail" ||
		e.Detail.Offset != st.Size() || e.Detail.Length != int64(len(torn)) || e.Detail.Ref != sumHex(torn) {
		t.Errorf("got entry %+v, want IntegrityViolation seq 6 recording the torn bytes", e)
	}
	if rep, err := Verify(path, VerifyOptions{}); err != nil || rep.Entries != 6 {
		t.Errorf("verify after recover: got %d entries, %v; want 6, nil", rep.Entries, err)
	}
	l := openT(t, path)
	if e, err := l.Append(context.Background(), sampleEvent(7)); err != nil || e.Seq != 7 {
		t.Errorf("append after recover: got seq %d, %v; want 7", e.Seq, err)
	}

	// Nothing left to repair; a second torn tail gets the next file name.
	if rec, err := Recover(path, Options{}); err != nil || rec.Length != 0 {
		t.Errorf("second recover: got %+v, %v; want nothing done", rec, err)
	}
	appendTorn(t, path)
	if rec, err := Recover(path, Options{}); err != nil || rec.TornFile != path+".torn-2" {
		t.Errorf("third recover: got %+v, %v; want %s.torn-2", rec, err, path)
	}
}

func TestRecoverFirstWriteTorn(t *testing.T) {
	path := tempLog(t)
	l := openT(t, path)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	appendTorn(t, path)
	rec, err := Recover(path, Options{})
	if err != nil || rec.Offset != 0 || rec.Entry.Seq != 1 || rec.Entry.Prev != Genesis {
		t.Fatalf("got %+v, %v; want seq 1 recording torn bytes at 0", rec, err)
	}
	if _, err := Verify(path, VerifyOptions{}); err != nil {
		t.Errorf("verify: %v", err)
	}
}

// TestRecoverEnd: the damage at the end of a log that verify and doctor
// send to --repair is repaired, losing no complete entry that verifies:
// the head is rewritten to the last such entry, torn bytes move aside, and
// each repair is an IntegrityViolation entry; the chain then verifies.
func TestRecoverEnd(t *testing.T) {
	otherHash := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		name   string
		tamper func(t *testing.T, lf *logFiles)
		keep   int    // complete entries that must survive, byte for byte
		codes  string // the IntegrityViolation codes appended, in order
	}{
		{"torn last line, head behind it", func(t *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines, []byte(`{"v":1,"seq":6,"ti`))
		}, 5, "torn_tail"},
		{"committed entry cut short", func(_ *testing.T, lf *logFiles) {
			lf.lines[4] = lf.lines[4][:50]
		}, 4, "torn_tail head_mismatch"},
		{"last line cut at its newline", func(_ *testing.T, lf *logFiles) {
			lf.lines[4] = lf.lines[4][:len(lf.lines[4])-1]
		}, 4, "torn_tail head_mismatch"},
		{"last entries removed", func(_ *testing.T, lf *logFiles) { lf.lines = lf.lines[:3] }, 3, "head_mismatch"},
		{"head names another hash", func(_ *testing.T, lf *logFiles) {
			lf.head = formatHead(Anchor{Seq: 5, Hash: otherHash})
		}, 5, "head_mismatch"},
		{"lagging head names another hash", func(_ *testing.T, lf *logFiles) {
			lf.head = formatHead(Anchor{Seq: 2, Hash: otherHash})
		}, 5, "head_mismatch"},
		{"last entry re-hashed", func(t *testing.T, lf *logFiles) { lf.editRehash(t, 5) }, 5, "head_mismatch"},
		{"head missing", func(_ *testing.T, lf *logFiles) { lf.head = nil }, 5, "head_missing"},
		{"head unreadable", func(_ *testing.T, lf *logFiles) { lf.head = []byte("garbage\n") }, 5, "head_unreadable"},
		{"head unreadable and torn tail", func(_ *testing.T, lf *logFiles) {
			lf.head = []byte("garbage\n")
			lf.lines[4] = lf.lines[4][:50]
		}, 4, "torn_tail head_unreadable"},
		{"every line torn", func(_ *testing.T, lf *logFiles) {
			lf.lines = [][]byte{lf.lines[0][:20]}
		}, 0, "torn_tail head_mismatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLog(t, 5)
			lf := readFiles(t, path)
			oldHead := lf.head
			c.tamper(t, lf)
			lf.write(t, path)
			if _, err := Verify(path, VerifyOptions{}); err == nil {
				t.Fatal("the tampering is not seen by Verify")
			}
			kept := bytes.Join(lf.lines[:c.keep], nil)
			rec, err := Recover(path, Options{Clock: newClock().Now})
			if err != nil {
				t.Fatalf("recover: %v", err)
			}
			raw, err := os.ReadFile(path)
			if err != nil || !bytes.HasPrefix(raw, kept) {
				t.Fatalf("recover lost entries that verified (%v)", err)
			}
			var codes []string
			for n := c.keep + 1; n <= bytes.Count(raw, []byte("\n")); n++ {
				e, lerr := parseLine(bytes.TrimSuffix(bytes.SplitAfter(raw, []byte("\n"))[n-1], []byte("\n")))
				if lerr != nil || e.Type != IntegrityViolation {
					t.Fatalf("entry %d: %+v %v, want an IntegrityViolation", n, e, lerr)
				}
				codes = append(codes, e.Detail.Code)
			}
			if got := strings.Join(codes, " "); got != c.codes {
				t.Errorf("got repairs %q, want %q", got, c.codes)
			}
			if rec.HeadProblem != nil {
				if old, err := parseHead(oldHead); err == nil && c.codes == "head_mismatch" && c.keep == 3 &&
					(rec.HeadEntry.Detail.Ref != old.Hash || rec.HeadEntry.Detail.Count != int64(old.Seq)) {
					t.Errorf("head entry %+v does not record the old head %v", rec.HeadEntry.Detail, old)
				}
			}
			if _, err := Verify(path, VerifyOptions{}); err != nil {
				t.Errorf("verify after recover: %v", err)
			}
			l := openT(t, path)
			if _, err := l.Append(context.Background(), sampleEvent(9)); err != nil {
				t.Errorf("append after recover: %v", err)
			}
		})
	}
}

func TestRecoverRefusesWhatACrashCannotCause(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, lf *logFiles)
		code   Code
	}{
		{"bad complete line", func(_ *testing.T, lf *logFiles) { lf.lines = append(lf.lines, []byte("x\n")) }, CodeBadJSON},
		{"middle entry edited", func(_ *testing.T, lf *logFiles) {
			lf.lines[2] = bytes.Replace(lf.lines[2], []byte(`"seq":3`), []byte(`"seq":3 `), 1)
		}, CodeNotCanonical},
		{"middle entry re-hashed", func(t *testing.T, lf *logFiles) { lf.editRehash(t, 3) }, CodePrevMismatch},
		{"middle entry removed", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines[:2], lf.lines[3:]...)
		}, CodeSeqGap},
		{"middle entry removed and torn tail", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines[:2], lf.lines[3:]...)
			lf.lines[3] = lf.lines[3][:50]
		}, CodeSeqGap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLog(t, 5)
			lf := readFiles(t, path)
			c.tamper(t, lf)
			lf.write(t, path)
			before, _ := os.ReadFile(path)
			if _, err := Recover(path, Options{}); !hasCode(err, c.code) {
				t.Errorf("got %v, want %s", err, c.code)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("recover changed the log it refused")
			}
			if _, err := os.Stat(path + ".torn-1"); err == nil {
				t.Errorf("recover left a torn file")
			}
		})
	}
	if _, err := Recover(tempLog(t), Options{}); err == nil {
		t.Errorf("recover of a missing log: got nil, want an error")
	}
}
