package httpapi

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parallax/parallax/audit"
)

// TestEvaluateBoundedOnDeepNesting reproduces issue 13 through the HTTP
// API: a body of 100k nested arrays cost seconds and gigabytes and could
// take `parallax serve` down. Each is refused (400) with a reason saying
// what was wrong, the refusal is in the audit chain without the body, and
// the server goes on answering. Time and memory are logged, not asserted.
func TestEvaluateBoundedOnDeepNesting(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	levels := []int{10_000, 100_000, 1_000_000}
	for _, n := range levels {
		body := `{"session":"s1","type":"mcp_call","payload":{"server":"s","tool":"t","arguments":{"a":` +
			strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		code, b, _ := ts.do(t, http.MethodPost, "/v1/evaluate", body, true)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		t.Logf("%d levels (%d bytes): status %d in %v, %d KB allocated (client and server)", n, len(body), code,
			took, (after.TotalAlloc-before.TotalAlloc)>>10)
		if code != http.StatusBadRequest || !strings.Contains(string(b), "nested too deeply") {
			t.Errorf("%d levels: status %d, body %.300s; want 400 saying it nests too deeply", n, code, b)
		}
	}
	code, b, _ := ts.do(t, http.MethodPost, "/v1/observe", `{"session":"s2","type":"read_file","payload":{"path":"/a"},"result":`+
		strings.Repeat("[", 100_000)+`}`, true)
	if code != http.StatusBadRequest || !strings.Contains(string(b), "nested too deeply") ||
		!strings.Contains(string(b), "session s2 is now tainted critical") {
		t.Errorf("observe: status %d, body %.300s; want 400 saying it nests too deeply and s2 is now critical", code, b)
	}
	if v := ts.evaluate(t, `{"session":"s1","type":"read_file","payload":{"path":"/tmp/x"}}`); v.Reason == "" && v.Rule == "" {
		t.Errorf("the server did not judge the next request: %+v", v)
	}
	var got []audit.Entry
	if err := audit.Scan(audit.DefaultPath(ts.root), audit.Filter{Type: audit.ActionBlocked},
		func(e audit.Entry) error {
			if e.Rule == ErrCodeBadRequest {
				got = append(got, e)
			}
			return nil
		}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(levels) {
		t.Fatalf("got %d bad_request entries, want one per refused body (%d)", len(got), len(levels))
	}
	for _, e := range got {
		if !strings.Contains(e.Reason, "nested too deeply") || strings.Contains(e.Reason, "[[") {
			t.Errorf("entry reason %q: want the depth named, never the body", e.Reason)
		}
	}
}

// TestEvaluateRefusalsAudited: a malformed body and an oversized one are
// in the chain, with reasons that do not echo the body.
func TestEvaluateRefusalsAudited(t *testing.T) {
	ts := startServer(t, Config{MaxBodyBytes: 4096}, nil)
	const secret = "SECRETVALUE42"
	for _, body := range []string{
		`{"type":"read_file","payload":{"path":"/` + secret + `"},"` + secret + `":1}`,
		`{"type":"read_file","payload":{"path":"/` + secret + strings.Repeat("a", 5000) + `"}}`,
		"{\"type\":\"read_file\",\"payload\":{\"path\":\"/" + secret + "\xff\"}}",
	} {
		if code, _, _ := ts.do(t, http.MethodPost, "/v1/evaluate", body, true); code == http.StatusOK {
			t.Errorf("status 200 for a refused body")
		}
	}
	var rules []string
	if err := audit.Scan(audit.DefaultPath(ts.root), audit.Filter{Type: audit.ActionBlocked}, func(e audit.Entry) error {
		rules = append(rules, e.Rule)
		if strings.Contains(e.Reason, secret) {
			t.Errorf("reason %q echoes the body", e.Reason)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rules, ",") != "bad_request,request_too_large,bad_request" {
		t.Errorf("got audited refusals %v, want bad_request, request_too_large, bad_request", rules)
	}
}
