package shield

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// deepLine is a request line whose MCP arguments nest n arrays.
func deepLine(n int) string {
	return `{"type":"mcp_call","payload":{"server":"s","tool":"t","arguments":{"a":` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
}

// TestStreamBoundedOnDeepNesting reproduces issue 13 through `parallax
// shield evaluate`: 100k levels cost 14-35 s and 10 GB, 300k ran the
// process out of memory. Each line is a BLOCK from the decode stage, and
// the stream goes on to the next line. Figures are logged, not asserted.
func TestStreamBoundedOnDeepNesting(t *testing.T) {
	g := newTestGate(t, "")
	for _, c := range []struct {
		n    int
		rule string
	}{{10_000, RuleBadRequest}, {100_000, RuleBadRequest}, {500_000, RuleBadRequest}, {1_000_000, RuleTooLarge}} {
		in := deepLine(c.n) + "\n" + `{"type":"read_file","payload":{"path":"/tmp/x"}}` + "\n"
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		vs := runStream(t, g, in)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		t.Logf("%d levels (%d bytes): %s in %v, %d KB allocated", c.n, len(in), vs[0].Rule, took,
			(after.TotalAlloc-before.TotalAlloc)>>10)
		if len(vs) != 2 {
			t.Fatalf("%d levels: got %d verdicts, want 2", c.n, len(vs))
		}
		if vs[0].Decision != verdict.Block || vs[0].Stage != verdict.StageDecode || vs[0].Rule != c.rule {
			t.Errorf("%d levels: got %v %s %s (%s), want BLOCK decode %s", c.n, vs[0].Decision, vs[0].Stage,
				vs[0].Rule, vs[0].Reason, c.rule)
		}
		if c.rule == RuleBadRequest && !strings.Contains(vs[0].Reason, "nested too deeply") {
			t.Errorf("%d levels: reason %q does not say what was wrong", c.n, vs[0].Reason)
		}
		if vs[1].Decision == verdict.Block && vs[1].Stage == verdict.StageDecode {
			t.Errorf("the line after was refused too: %+v", vs[1])
		}
	}
}

// TestStreamAuditsRefusedLines: a malformed, a too-deep, a non-UTF-8 and
// an oversized line each get an audit entry, and none of those entries
// carries the line's content.
func TestStreamAuditsRefusedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: testWS, Home: testHome, Audit: log})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "SECRETVALUE42"
	in := strings.Join([]string{
		`{"type":"read_file","payload":{"path":"/tmp/` + secret + `"},"` + secret + `":1}`,
		`{"type":"read_file","payload":{"path":"/tmp/` + secret + `","x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`,
		"{\"type\":\"read_file\",\"payload\":{\"path\":\"/tmp/" + secret + "\xff\"}}",
		`{"type":"read_file","payload":{"path":"/tmp/` + secret + strings.Repeat("a", MaxLineBytes) + `"}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := Stream(context.Background(), g, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("the chain does not verify: %v", err)
	}
	var got []audit.Entry
	if err := audit.Scan(path, audit.Filter{}, func(e audit.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	wantRules := []string{RuleBadRequest, RuleBadRequest, RuleBadRequest, RuleTooLarge}
	if len(got) != len(wantRules) {
		t.Fatalf("got %d audit entries, want %d (one per refused line)", len(got), len(wantRules))
	}
	for i, e := range got {
		if e.Type != audit.ActionBlocked || e.Rule != wantRules[i] || e.Reason == "" {
			t.Errorf("entry %d: got %s %s %q, want action_blocked %s with a reason", i, e.Type, e.Rule,
				e.Reason, wantRules[i])
		}
		if strings.Contains(e.Reason, secret) {
			t.Errorf("entry %d: reason %q echoes the input", i, e.Reason)
		}
	}
	if !strings.Contains(got[1].Reason, "nested too deeply") || !strings.Contains(got[2].Reason, "payload.path") {
		t.Errorf("got reasons %q and %q, want the depth and the field named", got[1].Reason, got[2].Reason)
	}
}
