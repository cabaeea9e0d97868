package audit

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// logFiles is a log and its head as bytes, for tampering.
type logFiles struct {
	lines [][]byte // each with its newline
	head  []byte   // nil: no head file
}

func readFiles(t *testing.T, path string) *logFiles {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(HeadPath(path))
	if err != nil {
		t.Fatal(err)
	}
	return &logFiles{lines: bytes.SplitAfter(raw, []byte("\n"))[:bytes.Count(raw, []byte("\n"))], head: head}
}

func (lf *logFiles) write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(lf.lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	hp := HeadPath(path)
	if lf.head == nil {
		if err := os.Remove(hp); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(hp, lf.head, 0o600); err != nil {
		t.Fatal(err)
	}
}

// entry parses line n (1-based).
func (lf *logFiles) entry(t *testing.T, n int) Entry {
	t.Helper()
	e, lerr := parseLine(bytes.TrimSuffix(lf.lines[n-1], []byte("\n")))
	if lerr != nil {
		t.Fatalf("line %d: %s: %s", n, lerr.code, lerr.msg)
	}
	return e
}

// rehash replaces line n with e, correctly hashed, and returns its hash.
func (lf *logFiles) rehash(n int, e Entry) string {
	lf.lines[n-1] = encodeLine(nil, &e)
	return e.Hash
}

// editRehash changes line n's reason and re-hashes it (prev unchanged).
func (lf *logFiles) editRehash(t *testing.T, n int) {
	e := lf.entry(t, n)
	e.Reason = "nothing to see here"
	lf.rehash(n, e)
}

// flip replaces the first occurrence of old in line n.
func (lf *logFiles) flip(t *testing.T, n int, old, repl string) {
	t.Helper()
	l := string(lf.lines[n-1])
	if !strings.Contains(l, old) {
		t.Fatalf("line %d lacks %q", n, old)
	}
	lf.lines[n-1] = []byte(strings.Replace(l, old, repl, 1))
}

func TestTamperDetectedAndLocated(t *testing.T) {
	const n = 10
	cases := []struct {
		name   string
		tamper func(t *testing.T, lf *logFiles)
		code   Code
		line   int
		seq    uint64
	}{
		{"flip a byte of a reason", func(t *testing.T, lf *logFiles) { lf.flip(t, 5, "reads", "Reads") },
			CodeHashMismatch, 5, 5},
		{"flip a byte of the JSON", func(t *testing.T, lf *logFiles) { lf.lines[4][0] = '[' },
			CodeBadJSON, 5, 5},
		{"flip a byte of the hash", func(t *testing.T, lf *logFiles) {
			h := lf.entry(t, 5).Hash
			lf.flip(t, 5, h, h[:len(h)-1]+map[bool]string{true: "1", false: "0"}[h[len(h)-1] == '0'])
		}, CodeHashMismatch, 5, 5},
		{"flip a byte of prev", func(t *testing.T, lf *logFiles) {
			p := lf.entry(t, 5).Prev
			lf.flip(t, 5, p, "sha256:"+strings.Repeat("0", 64))
		}, CodeHashMismatch, 5, 5},
		{"flip a byte into an escape", func(t *testing.T, lf *logFiles) { lf.flip(t, 5, `"seq"`, `"se\u0071"`) },
			CodeNotCanonical, 5, 5},
		{"add white space", func(t *testing.T, lf *logFiles) { lf.flip(t, 5, `"seq":`, `"seq": `) },
			CodeNotCanonical, 5, 5},
		{"CRLF line end", func(t *testing.T, lf *logFiles) { lf.flip(t, 3, "}\n", "}\r\n") },
			CodeNotCanonical, 3, 3},
		{"delete an entry", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines[:4], lf.lines[5:]...)
		}, CodeSeqGap, 5, 6},
		{"delete the first entry", func(_ *testing.T, lf *logFiles) { lf.lines = lf.lines[1:] },
			CodeSeqGap, 1, 2},
		{"swap two entries", func(_ *testing.T, lf *logFiles) {
			lf.lines[3], lf.lines[4] = lf.lines[4], lf.lines[3]
		}, CodeSeqGap, 4, 5},
		{"duplicate an entry", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines[:5], append([][]byte{lf.lines[4]}, lf.lines[5:]...)...)
		}, CodeSeqGap, 6, 5},
		{"truncate mid-line", func(_ *testing.T, lf *logFiles) {
			lf.lines[n-1] = lf.lines[n-1][:len(lf.lines[n-1])/2]
		}, CodeTornTail, n, n},
		{"truncate mid-file", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines[:4], lf.lines[4][:40])
		}, CodeTornTail, 5, 5},
		{"truncate the newline only", func(_ *testing.T, lf *logFiles) {
			lf.lines[n-1] = bytes.TrimSuffix(lf.lines[n-1], []byte("\n"))
		}, CodeTornTail, n, n},
		{"truncate the whole last entry", func(_ *testing.T, lf *logFiles) { lf.lines = lf.lines[:n-1] },
			CodeHeadMismatch, n, n},
		{"truncate to empty", func(_ *testing.T, lf *logFiles) { lf.lines = nil },
			CodeHeadMismatch, n, n},
		{"edit and re-hash an entry in the middle", func(t *testing.T, lf *logFiles) { lf.editRehash(t, 5) },
			CodePrevMismatch, 6, 6},
		{"edit and re-hash the first entry", func(t *testing.T, lf *logFiles) { lf.editRehash(t, 1) },
			CodePrevMismatch, 2, 2},
		{"edit and re-hash the last entry", func(t *testing.T, lf *logFiles) { lf.editRehash(t, n) },
			CodeHeadMismatch, n, n},
		{"delete one and re-chain the rest", func(t *testing.T, lf *logFiles) {
			prev := lf.entry(t, 4).Hash
			for i := 5; i < n; i++ {
				e := lf.entry(t, i+1)
				e.Seq, e.Prev = uint64(i), prev
				prev = lf.rehash(i, e)
			}
			lf.lines = lf.lines[:n-1]
		}, CodeHeadMismatch, n, n},
		{"head removed", func(_ *testing.T, lf *logFiles) { lf.head = nil }, CodeHeadMissing, n, n},
		{"head flipped", func(_ *testing.T, lf *logFiles) { lf.head[30]++ }, CodeHeadUnreadable, 0, 0},
		{"head forged with a valid record", func(_ *testing.T, lf *logFiles) {
			lf.head = formatHead(Anchor{Seq: n, Hash: "sha256:" + strings.Repeat("ab", 32)})
		}, CodeHeadMismatch, n, n},
		{"head forged at an earlier seq", func(t *testing.T, lf *logFiles) {
			lf.head = formatHead(Anchor{Seq: 8, Hash: lf.entry(t, 7).Hash})
		}, CodeHeadMismatch, 8, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLog(t, n)
			lf := readFiles(t, path)
			c.tamper(t, lf)
			lf.write(t, path)
			_, err := Verify(path, VerifyOptions{})
			ce, ok := AsChainError(err)
			if !ok {
				t.Fatalf("got %v, want a ChainError", err)
			}
			if ce.Code != c.code || ce.Line != c.line || ce.Seq != c.seq {
				t.Errorf("got %s at line %d seq %d, want %s at line %d seq %d (%v)",
					ce.Code, ce.Line, ce.Seq, c.code, c.line, c.seq, err)
			}
			wantPath := path
			if c.code == CodeHeadUnreadable {
				wantPath = HeadPath(path) // the file that is wrong
			}
			if ce.Path != wantPath {
				t.Errorf("got path %q, want %q", ce.Path, wantPath)
			}
		})
	}
}

// TestTamperAtTailStopsAppends: what a crash or an edit leaves at the end
// of the log stops Open, and stops a writer that already had it open.
func TestTamperAtTailStopsAppends(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, lf *logFiles)
		code   Code
	}{
		{"torn after the last entry", func(_ *testing.T, lf *logFiles) {
			lf.lines = append(lf.lines, lf.lines[4][:50])
		}, CodeTornTail},
		{"last entry cut short", func(_ *testing.T, lf *logFiles) { lf.lines[4] = lf.lines[4][:50] }, CodeHeadMismatch},
		{"last entry removed", func(_ *testing.T, lf *logFiles) { lf.lines = lf.lines[:4] }, CodeHeadMismatch},
		{"last entry re-hashed", func(t *testing.T, lf *logFiles) { lf.editRehash(t, 5) }, CodeHeadMismatch},
		{"last entry flipped", func(t *testing.T, lf *logFiles) { lf.flip(t, 5, "reads", "Reads") }, CodeHashMismatch},
		{"garbage appended", func(_ *testing.T, lf *logFiles) { lf.lines = append(lf.lines, []byte("not json\n")) }, CodeBadJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLog(t, 5)
			writer := openT(t, path)
			lf := readFiles(t, path)
			c.tamper(t, lf)
			lf.write(t, path)
			if _, err := Open(path, Options{}); !hasCode(err, c.code) {
				t.Errorf("open: got %v, want %s", err, c.code)
			}
			if _, err := writer.Append(t.Context(), sampleEvent(1)); !hasCode(err, c.code) {
				t.Errorf("append by an open writer: got %v, want %s", err, c.code)
			}
		})
	}
}

func hasCode(err error, c Code) bool {
	ce, ok := AsChainError(err)
	return ok && ce.Code == c
}

// TestFullRewriteNeedsAnAnchor documents the threat model: whoever can
// write both files can re-chain a suffix and move the head; only an anchor
// kept elsewhere catches it.
func TestFullRewriteNeedsAnAnchor(t *testing.T) {
	path := writeLog(t, 10)
	lf := readFiles(t, path)
	anchor := Anchor{Seq: 7, Hash: lf.entry(t, 7).Hash}
	prev := lf.entry(t, 4).Hash
	for i := 5; i <= 10; i++ {
		e := lf.entry(t, i)
		e.Reason, e.Prev = "rewritten", prev
		prev = lf.rehash(i, e)
	}
	lf.head = formatHead(Anchor{Seq: 10, Hash: prev})
	lf.write(t, path)

	if _, err := Verify(path, VerifyOptions{}); err != nil {
		t.Errorf("without an anchor: got %v, want nil (documented limit)", err)
	}
	_, err := Verify(path, VerifyOptions{Anchors: []Anchor{anchor}})
	if ce, ok := AsChainError(err); !ok || ce.Code != CodeAnchorMismatch || ce.Line != 7 || ce.Seq != 7 {
		t.Errorf("with an anchor at seq 7: got %v, want anchor_mismatch at line 7", err)
	}

	// Removing entries up to past an anchor is caught too.
	lf.lines = lf.lines[:5]
	lf.head = formatHead(Anchor{Seq: 5, Hash: lf.entry(t, 5).Hash})
	lf.write(t, path)
	_, err = Verify(path, VerifyOptions{Anchors: []Anchor{anchor}})
	if ce, ok := AsChainError(err); !ok || ce.Code != CodeAnchorMismatch || ce.Seq != 7 {
		t.Errorf("anchor past the end: got %v, want anchor_mismatch at seq 7", err)
	}
}

func TestParseAnchor(t *testing.T) {
	h := "sha256:" + strings.Repeat("0a", 32)
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"7:" + h, true},
		{"0:" + h, false},
		{"-1:" + h, false},
		{"7:" + strings.ToUpper(h), false},
		{"7", false},
		{"x:" + h, false},
	} {
		a, err := ParseAnchor(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseAnchor(%q): got %v, want ok=%v", c.in, err, c.ok)
		}
		if c.ok && a.String() != c.in {
			t.Errorf("got %q, want %q", a.String(), c.in)
		}
	}
}
