package shield

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

// echoEval allows everything it is handed, so the tests see what Stream
// itself refuses.
type echoEval struct{ seen []Request }

func (e *echoEval) Evaluate(_ context.Context, r Request) verdict.Verdict {
	e.seen = append(e.seen, r)
	return verdict.Verdict{Decision: verdict.Allow, Stage: verdict.StagePolicy, Rule: "test"}
}

func runStream(t *testing.T, ev Evaluator, in string) []verdict.Verdict {
	t.Helper()
	var out bytes.Buffer
	if err := Stream(context.Background(), ev, strings.NewReader(in), &out); err != nil {
		t.Fatalf("stream: %v", err)
	}
	var vs []verdict.Verdict
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var v verdict.Verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		vs = append(vs, v)
	}
	return vs
}

func TestStreamMalformedLinesGoOn(t *testing.T) {
	in := strings.Join([]string{
		`{"session":"s1","type":"read_file","payload":{"path":"/a"}}`,
		`not json`,
		``,
		`{"type":"read_file","payload":{},"extra":1}`,
		`{"type":"read_file","type":"write_file","payload":{}}`,
		`{"payload":{}}`,
		`{"type":"read_file","payload":{"path":"/b"},"result":"ok"}`,
	}, "\n") + "\n"
	ev := &echoEval{}
	vs := runStream(t, ev, in)
	want := []verdict.Decision{verdict.Allow, verdict.Block, verdict.Block, verdict.Block, verdict.Block, verdict.Block, verdict.Allow}
	if len(vs) != len(want) {
		t.Fatalf("got %d verdict lines, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if v.Decision != want[i] {
			t.Errorf("line %d: got %v (%s), want %v", i+1, v.Decision, v.Reason, want[i])
		}
		if v.Decision == verdict.Block && v.Reason == "" {
			t.Errorf("line %d: BLOCK without a reason", i+1)
		}
	}
	if len(ev.seen) != 2 || ev.seen[0].Session != "s1" || ev.seen[1].Result != "ok" {
		t.Errorf("got requests %+v, want the two valid ones with session and result", ev.seen)
	}
}

func TestStreamNoTrailingNewline(t *testing.T) {
	vs := runStream(t, &echoEval{}, `{"type":"read_file","payload":{"path":"/a"}}`)
	if len(vs) != 1 || vs[0].Decision != verdict.Allow {
		t.Fatalf("got %+v, want one ALLOW", vs)
	}
}

// hugeReader produces a line of n bytes without holding it in memory.
type hugeReader struct{ n, off int }

func (h *hugeReader) Read(p []byte) (int, error) {
	if h.off >= h.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && h.off < h.n {
		switch {
		case h.off == h.n-1:
			p[k] = '\n'
		case h.off < 40:
			p[k] = `{"type":"write_file","payload":{"path":"`[h.off%40]
		default:
			p[k] = 'x'
		}
		k++
		h.off++
	}
	return k, nil
}

func TestStreamRefusesHugeLine(t *testing.T) {
	r := io.MultiReader(&hugeReader{n: 10 << 20}, strings.NewReader(`{"type":"read_file","payload":{"path":"/a"}}`+"\n"))
	var out bytes.Buffer
	if err := Stream(context.Background(), &echoEval{}, r, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2", len(lines))
	}
	var v verdict.Verdict
	if err := json.Unmarshal([]byte(lines[0]), &v); err != nil || v.Decision != verdict.Block || v.Rule != RuleTooLarge {
		t.Fatalf("got %s, want a request_too_large BLOCK", lines[0])
	}
}

func FuzzStream(f *testing.F) {
	f.Add(`{"type":"read_file","payload":{"path":"/a"}}` + "\n" + `{"type":`)
	f.Add(`{"type":"execute_command","payload":{"command":"ls"},"session":"x"}`)
	f.Add(deepLine(100) + "\n" + "{\"type\":\"read_file\",\"payload\":{\"path\":\"/\xff\"}}")
	f.Fuzz(func(t *testing.T, in string) {
		n := strings.Count(in, "\n")
		if !strings.HasSuffix(in, "\n") && in != "" {
			n++
		}
		var out bytes.Buffer
		if err := Stream(context.Background(), &echoEval{}, strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(out.String(), "\n"); got != n {
			t.Fatalf("got %d verdict lines for %d input lines", got, n)
		}
	})
}
