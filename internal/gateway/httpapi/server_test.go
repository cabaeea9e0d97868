package httpapi

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/verdict"
)

// TestRoutes: status, error code and authentication of every route, on a
// real workspace over loopback.
func TestRoutes(t *testing.T) {
	ts := startServer(t, Config{MaxBatch: 3, MaxBodyBytes: 64 << 10}, nil)
	read := `{"id":"r1","session":"s1","type":"read_file","payload":{"path":"` + ts.root + `/a.go"}}`
	cases := []struct {
		name, method, path, body string
		auth                     bool
		wantCode                 int
		wantErr                  string // error code of the body
		wantIn                   string // part of the body
	}{
		{"healthz needs no token", "GET", "/healthz", "", false, 200, "", `"status":"ok"`},
		{"evaluate without token", "POST", "/v1/evaluate", read, false, 401, ErrCodeUnauthorized, ""},
		{"observe without token", "POST", "/v1/observe", read, false, 401, ErrCodeUnauthorized, ""},
		{"session without token", "GET", "/v1/sessions/s1", "", false, 401, ErrCodeUnauthorized, ""},
		{"metrics without token", "GET", "/metrics", "", false, 401, ErrCodeUnauthorized, ""},
		{"evaluate", "POST", "/v1/evaluate", read, true, 200, "", `"decision":"ALLOW"`},
		{"evaluate echoes the id", "POST", "/v1/evaluate", read, true, 200, "", `"id":"r1"`},
		{"batch", "POST", "/v1/evaluate", `{"requests":[` + read + `,` + read + `]}`, true, 200, "", `"verdicts":[`},
		{"unknown field", "POST", "/v1/evaluate", `{"type":"read_file","payload":{},"sesion":"x"}`, true, 400, ErrCodeBadRequest, `unknown field \"sesion\"`},
		{"duplicated key", "POST", "/v1/evaluate", `{"type":"read_file","type":"read_file","payload":{}}`, true, 400, ErrCodeBadRequest, "duplicate"},
		{"batch over the limit", "POST", "/v1/evaluate", `{"requests":[` + strings.Repeat(read+",", 3) + read + `]}`, true, 413, ErrCodeTooLarge, "limit of 3"},
		{"body over the limit", "POST", "/v1/evaluate", `{"type":"write_file","payload":{"path":"/a","content":"` + strings.Repeat("x", 64<<10) + `"}}`, true, 413, ErrCodeTooLarge, "limit of 65536"},
		{"not JSON", "POST", "/v1/evaluate", `type=read_file`, true, 400, ErrCodeBadRequest, "JSON object"},
		{"GET evaluate", "GET", "/v1/evaluate", "", true, 405, "", ""},
		{"unknown route", "GET", "/v1/nothing", "", true, 404, "", ""},
		{"metrics", "GET", "/metrics", "", true, 200, "", "parallax_decisions_total"},
		{"unknown session", "GET", "/v1/sessions/never-seen", "", true, 200, "", `"known":false,"taint":"public"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, hdr := ts.do(t, tc.method, tc.path, tc.body, tc.auth)
			if code != tc.wantCode {
				t.Fatalf("got %d, want %d: %s", code, tc.wantCode, body)
			}
			if tc.wantErr != "" {
				var e errorBody
				if err := json.Unmarshal(body, &e); err != nil || e.Error != tc.wantErr {
					t.Errorf("error body: got %s, want code %q", body, tc.wantErr)
				}
			}
			if !strings.Contains(string(body), tc.wantIn) {
				t.Errorf("body: got %s, want it to contain %s", body, tc.wantIn)
			}
			if code == 401 && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), `Bearer realm="parallax"`) {
				t.Errorf("401 without a Bearer challenge: %q", hdr.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestAuthFailures(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	cases := []struct {
		name, header, challenge string
	}{
		{"missing", "", `Bearer realm="parallax"`},
		{"wrong", "Bearer " + strings.Repeat("a", 64), `Bearer realm="parallax", error="invalid_token"`},
		{"basic", "Basic dXNlcjpwYXNz", `Bearer realm="parallax", error="invalid_token"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.url+"/v1/sessions/s1", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Errorf("got %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.challenge)
			}
		})
	}
	t.Run("content type", func(t *testing.T) {
		req, _ := http.NewRequest("POST", ts.url+"/v1/evaluate", strings.NewReader(`{"type":"read_file","payload":{}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("got %d, want 415", resp.StatusCode)
		}
	})
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if logs := ts.logs.String(); strings.Contains(logs, testToken) || strings.Contains(logs, strings.Repeat("a", 64)) ||
		strings.Contains(logs, "dXNlcjpwYXNz") {
		t.Errorf("a token reached the logs:\n%s", logs)
	}
}

// TestObserveTaintsSession: a secret reported to /v1/observe taints the
// session (visible at /v1/sessions) and blocks its later mail; another
// session is untouched; a sub-agent carries its taint to the parent.
func TestObserveTaintsSession(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	const secret = "aws_secret_access_key = q8Vt2LmN0xR5bY7wKp3ZcF9sHd1JgA6eUo4iTnQm"
	obs := mustJSON(t, ObserveRequest{Session: "s1", Type: "execute_command", Payload: payload("command", "cat config/app.ini"), Result: secret})
	if code, body, _ := ts.do(t, "POST", "/v1/observe", obs, true); code != http.StatusNoContent {
		t.Fatalf("observe: got %d %s, want 204", code, body)
	}
	mail := func(session string) string {
		return mustJSON(t, EvaluateRequest{Session: session, Type: "send_email",
			Payload: payload("to", "x@example.com", "subject", "hi", "body", "done")})
	}
	if v := ts.evaluate(t, mail("s1")); v.Decision != verdict.Block || v.Stage != verdict.StageIFC {
		t.Errorf("mail from s1 after the secret: got %v at %s (%s), want BLOCK at ifc", v.Decision, v.Stage, v.Reason)
	}
	if v := ts.evaluate(t, mail("s2")); v.Decision == verdict.Block {
		t.Errorf("mail from clean s2: got %v (%s)", v.Decision, v.Reason)
	}
	info := ts.sessionInfo(t, "s1")
	if !info.Known || info.Taint != "critical" || len(info.Taints) == 0 || info.StartedAt == nil {
		t.Errorf("session s1: got %+v, want known, critical", info)
	}
	// A sub-agent's result reaches its parent.
	child := mustJSON(t, EvaluateRequest{Session: "c1", Parent: "p1", Type: "execute_command",
		Payload: payload("command", "cat notes.txt"), Result: secret})
	ts.evaluate(t, child)
	if info := ts.sessionInfo(t, "c1"); info.Parent != "p1" || info.Taint != "critical" {
		t.Errorf("sub-agent c1: got %+v, want parent p1, critical", info)
	}
	if info := ts.sessionInfo(t, "p1"); info.Taint != "critical" || info.Taints[0].Origin != "c1" {
		t.Errorf("parent p1: got %+v, want critical from c1", info)
	}
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{audit.DefaultPath(ts.root)} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "q8Vt2LmN0") {
			t.Errorf("%s holds the secret", f)
		}
	}
	if strings.Contains(ts.logs.String(), "q8Vt2LmN0") || strings.Contains(ts.logs.String(), "x@example.com") {
		t.Errorf("the logs hold a result or a payload:\n%s", ts.logs.String())
	}
}

// TestObserveFailureTaintsCritical: a result the server cannot record
// leaves its session tainted critical, and the audit chain says why.
func TestObserveFailureTaintsCritical(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	cases := []struct {
		name, session, body string
		wantCode            int
	}{
		{"unknown field", "f1", `{"session":"f1","type":"read_file","payload":{"path":"/a"},"output":"secret stuff"}`, 400},
		{"unknown action", "f2", `{"session":"f2","type":"teleport","payload":{},"result":"x"}`, 400},
		{"bad payload", "f3", `{"session":"f3","type":"read_file","payload":{"file":"/a"},"result":"x"}`, 400},
		{"relative path", "f4", `{"session":"f4","type":"read_file","payload":{"path":"a.txt"},"result":"x"}`, 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body, _ := ts.do(t, "POST", "/v1/observe", tc.body, true)
			var e errorBody
			if code != tc.wantCode || json.Unmarshal(body, &e) != nil || e.Error != ErrCodeObserve {
				t.Fatalf("got %d %s, want %d %s", code, body, tc.wantCode, ErrCodeObserve)
			}
			if !strings.Contains(e.Message, "tainted critical") {
				t.Errorf("message: got %q, want it to say the session is tainted", e.Message)
			}
			info := ts.sessionInfo(t, tc.session)
			if info.Taint != "critical" || info.Source != SourceObserveFailed {
				t.Errorf("session %s: got %s from %q, want critical from %s", tc.session, info.Taint, info.Source, SourceObserveFailed)
			}
		})
	}
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	entries := auditEntries(t, ts.root)
	var failures int
	for _, e := range entries {
		if e.Type == audit.ShieldError && e.Detail.Code == SourceObserveFailed {
			failures++
		}
	}
	if failures != len(cases) {
		t.Errorf("ShieldError entries: got %d, want %d", failures, len(cases))
	}
}

// TestMetricsCount: the exposition counts decisions by stage and outcome
// and requests by route pattern (never a raw session path).
func TestMetricsCount(t *testing.T) {
	ts := startServer(t, Config{}, nil)
	ts.evaluate(t, mustJSON(t, EvaluateRequest{Type: "read_file", Payload: payload("path", ts.root+"/a.go")}))
	ts.evaluate(t, mustJSON(t, EvaluateRequest{Type: "read_file", Payload: payload("path", "~/.ssh/id_rsa")}))
	ts.evaluate(t, mustJSON(t, EvaluateRequest{Type: "read_file", Payload: payload("path", "~/.ssh/id_ed25519")}))
	ts.do(t, "GET", "/v1/sessions/some-session", "", true)
	ts.do(t, "GET", "/v1/sessions/other-session", "", false)
	code, body, hdr := ts.do(t, "GET", "/metrics", "", true)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: got %d %q", code, hdr.Get("Content-Type"))
	}
	text := string(body)
	for _, want := range []string{
		`parallax_decisions_total{stage="policy",decision="ALLOW"} 1`,
		`parallax_decisions_total{stage="guard",decision="BLOCK"} 2`,
		`parallax_decision_seconds_count 3`,
		`parallax_decision_seconds_bucket{le="+Inf"} 3`,
		`parallax_http_requests_total{route="POST /v1/evaluate",code="200"} 3`,
		`parallax_http_requests_total{route="GET /v1/sessions/{id}",code="200"} 1`,
		`parallax_http_requests_total{route="GET /v1/sessions/{id}",code="401"} 1`,
		`parallax_http_request_duration_seconds_count{route="POST /v1/evaluate"} 3`,
		"parallax_http_in_flight 1", // the scrape itself
		"# TYPE parallax_decision_seconds histogram",
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "some-session") {
		t.Errorf("a session id reached the metrics")
	}
}

func (ts *testServer) sessionInfo(t *testing.T, id string) SessionInfo {
	t.Helper()
	code, body, _ := ts.do(t, "GET", "/v1/sessions/"+id, "", true)
	if code != 200 {
		t.Fatalf("session %s: got %d %s", id, code, body)
	}
	var info SessionInfo
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// auditEntries verifies the workspace's chain and returns its entries.
func auditEntries(t *testing.T, root string) []audit.Entry {
	t.Helper()
	path := audit.DefaultPath(root)
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("audit chain: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Entry
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}
