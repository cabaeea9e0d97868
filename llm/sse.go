package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxSSEEvent bounds one server-sent event (all its data lines).
const maxSSEEvent = 8 << 20

// sseReader reads the data of server-sent events (the "data:" fields of
// each event, joined by newlines). Other fields and comments are
// skipped. Lines may end in LF, CRLF or CR.
type sseReader struct {
	sc   *bufio.Scanner
	data bytes.Buffer
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), maxSSEEvent)
	sc.Split(splitSSELines)
	return &sseReader{sc: sc}
}

// errSSETooLarge is returned for an event over maxSSEEvent.
var errSSETooLarge = errors.New("server-sent event over the size limit")

// next returns the data of the next event that has any; io.EOF at the
// end. Data not terminated by a blank line at the end of the stream is
// dropped, as the specification says.
func (r *sseReader) next() ([]byte, error) {
	r.data.Reset()
	hasData := false
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			if hasData {
				return r.data.Bytes(), nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 || string(field) != "data" {
			continue // comment or another field
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if hasData {
			r.data.WriteByte('\n')
		}
		if r.data.Len()+len(value) > maxSSEEvent {
			return nil, errSSETooLarge
		}
		r.data.Write(value)
		hasData = true
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errSSETooLarge
		}
		return nil, err
	}
	return nil, io.EOF
}

// splitSSELines splits at LF, CRLF or a lone CR.
func splitSSELines(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		switch b {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a CR at the end: wait to see if LF follows
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
