package audit

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// seedLog builds a valid n-entry log in memory.
func seedLog(n int) []byte {
	var buf []byte
	prev := Genesis
	for i := 1; i <= n; i++ {
		ev := sampleEvent(i)
		e, err := prepare(&ev, nil)
		if err != nil {
			panic(err)
		}
		e.Seq, e.Prev = uint64(i), prev
		e.Time = time.Date(2026, 3, 1, 12, 0, i, 0, time.UTC)
		buf = encodeLine(buf, &e)
		prev = e.Hash
	}
	return buf
}

// FuzzVerify: arbitrary file contents never panic; the walk either passes
// or names a line and an offset inside the file; the tail reader agrees
// with the walk on every log the walk accepts.
func FuzzVerify(f *testing.F) {
	good := seedLog(4)
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add(append(bytes.Clone(good), good...))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"v":1}` + "\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := verifyStream(bytes.NewReader(data), "fuzz", nil, false, nil)
		tl, terr := readTail(bytes.NewReader(data), "fuzz", int64(len(data)))
		if err != nil {
			ce, ok := AsChainError(err)
			if !ok || ce.Line < 1 || ce.Offset < 0 || ce.Offset > int64(len(data)) || ce.Code == "" {
				t.Fatalf("unlocated error: %v", err)
			}
			return
		}
		if rep.Bytes != int64(len(data)) {
			t.Fatalf("verified %d of %d bytes", rep.Bytes, len(data))
		}
		if terr != nil || tl.torn() != 0 || tl.seq != rep.Last.Seq || tl.hash != rep.Last.Hash {
			t.Fatalf("tail %+v, %v disagrees with the walk %+v", tl, terr, rep.Last)
		}
	})
}

// FuzzParseLine: a line is accepted only in its canonical form, so what
// parses re-encodes to the same bytes.
func FuzzParseLine(f *testing.F) {
	for _, l := range bytes.SplitAfter(seedLog(3), []byte("\n")) {
		f.Add(bytes.TrimSuffix(l, []byte("\n")))
	}
	e := fullEntry()
	f.Add(bytes.TrimSuffix(encodeLine(nil, &e), []byte("\n")))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, lerr := parseLine(line)
		if lerr != nil {
			if lerr.code == "" {
				t.Fatal("error without a code")
			}
			return
		}
		if got := encodeLine(nil, &e); !bytes.Equal(got, append(bytes.Clone(line), '\n')) {
			t.Fatalf("accepted %q but it encodes as %q", line, got)
		}
	})
}

// FuzzParseAgree: the fast parser and the strict decoder accept the same
// lines and read them the same.
func FuzzParseAgree(f *testing.F) {
	for _, l := range bytes.SplitAfter(seedLog(3), []byte("\n")) {
		f.Add(bytes.TrimSuffix(l, []byte("\n")))
	}
	for _, e := range []Entry{fullEntry(), {Version: 1, Seq: 9, Type: IntegrityViolation, Prev: Genesis,
		Time: time.Date(2030, 1, 1, 0, 0, 0, 1, time.UTC), Detail: Detail{Offset: -1}}} {
		f.Add(bytes.TrimSuffix(encodeLine(nil, &e), []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		agree(t, line)
		agree(t, rehashed(line)) // so mutations of the body are not all hash_mismatch
	})
}

func agree(t *testing.T, line []byte) {
	orig := bytes.Clone(line)
	fe, fok := parseFast(line)
	se, serr := parseStrict(line)
	if !bytes.Equal(line, orig) {
		t.Fatal("parser changed its input")
	}
	if fok != (serr == nil) {
		t.Fatalf("fast ok=%v, strict %v, for %q", fok, serr, line)
	}
	if fok && !reflect.DeepEqual(fe, se) {
		t.Fatalf("fast %+v, strict %+v", fe, se)
	}
}

// rehashed replaces a trailing hash member with the hash of what precedes.
func rehashed(line []byte) []byte {
	tailLen := len(hashMember) + hashLen + 2
	if len(line) < tailLen+1 || !bytes.HasPrefix(line[len(line)-tailLen:], []byte(hashMember)) {
		return line
	}
	body := line[:len(line)-tailLen]
	sum := sumHex(append(bytes.Clone(body), '}'))
	return append(append(bytes.Clone(body), hashMember+sum...), '"', '}')
}
