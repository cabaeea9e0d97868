package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Filter selects entries. Zero fields select everything.
type Filter struct {
	Session string    // only this session
	Type    EventType // only this event type
	Last    int       // only the last N matches (0: all)
}

func (f *Filter) match(e *Entry) bool {
	return (f.Session == "" || e.Session == f.Session) && (f.Type == "" || e.Type == f.Type)
}

// Scan streams the entries of the log at path that match f, oldest first,
// to fn. Each line is parsed strictly and its own hash checked; the links
// between entries are Verify's job. A bad line, or a torn tail, stops the
// scan with a *ChainError naming the line, after the matches before it
// were handed to fn (with Last, the last N of them). An error from fn
// stops the scan and is returned.
func Scan(path string, f Filter, fn func(Entry) error) error {
	file, err := os.Open(path) //nolint:gosec // the caller names its audit file
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	defer file.Close()
	size, _, _, _, err := snapshot(file, path)
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	ring := newRing(f.Last)
	emit := fn
	if f.Last > 0 {
		emit = func(e Entry) error { ring.push(e); return nil }
	}
	serr := scanLines(io.NewSectionReader(file, 0, size), path, &f, emit)
	if f.Last > 0 {
		if err := ring.each(fn); err != nil {
			return err
		}
	}
	return serr
}

// scanLines parses each line and hands the matches to emit.
func scanLines(r io.Reader, path string, f *Filter, emit func(Entry) error) error {
	lr := newLineReader(r)
	var seq uint64 // the last seq read: errors name the one expected next
	for n := 1; ; n++ {
		line, off, torn, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, errLineTooLong) {
			return &ChainError{Path: path, Line: n, Seq: seq + 1, Offset: off, Code: CodeLineTooLong, Msg: err.Error()}
		}
		if err != nil {
			return fmt.Errorf("read audit log %s line %d: %w", path, n, err)
		}
		if torn {
			return &ChainError{Path: path, Line: n, Seq: seq + 1, Offset: off, Code: CodeTornTail,
				Msg: fmt.Sprintf("%d bytes without a final newline", len(line))}
		}
		e, lerr := parseLine(line)
		if lerr != nil {
			return &ChainError{Path: path, Line: n, Seq: seq + 1, Offset: off, Code: lerr.code, Msg: lerr.msg}
		}
		seq = e.Seq
		if f.match(&e) {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
}

// ring keeps the last n entries pushed.
type ring struct {
	buf   []Entry
	start int
}

func newRing(n int) *ring { return &ring{buf: make([]Entry, 0, max(n, 0))} }

func (r *ring) push(e Entry) {
	if len(r.buf) < cap(r.buf) {
		r.buf = append(r.buf, e)
		return
	}
	r.buf[r.start] = e
	r.start = (r.start + 1) % len(r.buf)
}

func (r *ring) each(fn func(Entry) error) error {
	for i := range r.buf {
		if err := fn(r.buf[(r.start+i)%len(r.buf)]); err != nil {
			return err
		}
	}
	return nil
}
