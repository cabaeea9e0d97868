package llm

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func readAllSSE(t *testing.T, in string) ([]string, error) {
	t.Helper()
	r := newSSEReader(strings.NewReader(in))
	var out []string
	for range 10000 {
		d, err := r.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
	t.Fatal("sse reader did not end")
	return nil, nil
}

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"cr", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"no space", "data:a\n\n", []string{"a"}},
		{"two spaces keep one", "data:  a\n\n", []string{" a"}},
		{"fields and comments", ": keep-alive\nevent: x\nid: 1\nretry: 5\ndata: a\n\n", []string{"a"}},
		{"event without data", "event: ping\n\ndata: a\n\n", []string{"a"}},
		{"unterminated last", "data: a\n\ndata: b", []string{"a"}},
		{"bare data field", "data\n\n", []string{""}},
		{"empty", "", nil},
		{"blank lines", "\n\n\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAllSSE(t, c.in)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			expectEqual(t, "events", strings.Join(got, "|"), strings.Join(c.want, "|"))
			expectEqual(t, "count", len(got), len(c.want))
		})
	}
}

func TestSSEReaderTooLarge(t *testing.T) {
	line := "data: " + strings.Repeat("x", maxSSEEvent/2) + "\n"
	_, err := readAllSSE(t, line+line+line+"\n")
	if !errors.Is(err, errSSETooLarge) {
		t.Errorf("many lines: got %v, want errSSETooLarge", err)
	}
	_, err = readAllSSE(t, "data: "+strings.Repeat("x", maxSSEEvent+1)+"\n\n")
	if !errors.Is(err, errSSETooLarge) {
		t.Errorf("one long line: got %v, want errSSETooLarge", err)
	}
}
