package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/parallax/parallax/verdict"
)

func TestDecodeEvaluate(t *testing.T) {
	read := `{"id":"r1","session":"s1","type":"read_file","payload":{"path":"/w/a.go"}}`
	cases := []struct {
		name    string
		body    string
		batch   bool
		n       int
		wantErr string
	}{
		{"single", read, false, 1, ""},
		{"single, spaces around", "\n " + read + " \n", false, 1, ""},
		{"all fields", `{"id":"x","session":"s","parent":"p","type":"read_file","payload":{"path":"/a"},"result":"out"}`, false, 1, ""},
		{"no payload is the gate's business", `{"type":"read_file"}`, false, 1, ""},
		{"batch", `{"requests":[` + read + `,` + read + `]}`, true, 2, ""},
		{"unknown field named", `{"type":"read_file","payload":{},"sesion":"s1"}`, false, 0, `unknown field "sesion"`},
		{"unknown field in a batch item", `{"requests":[` + read + `,{"type":"x","colour":1}]}`, true, 0, `requests[1]: json: unknown field "colour"`},
		{"duplicated key", `{"type":"read_file","type":"write_file","payload":{}}`, false, 0, "duplicate"},
		{"duplicated key in payload", `{"type":"read_file","payload":{"path":"/a","path":"/b"}}`, false, 0, "duplicate"},
		{"trailing data", read + ` {}`, false, 0, "trailing data"},
		{"trailing bracket", read + `]`, false, 0, "trailing data"},
		{"not an object", `[` + read + `]`, false, 0, "JSON object"},
		{"empty", ``, false, 0, "JSON object"},
		{"no type", `{"session":"s1","payload":{}}`, false, 0, `no "type"`},
		{"no type in a batch item", `{"requests":[{"payload":{}}]}`, true, 0, `requests[0]: request has no "type"`},
		{"empty batch", `{"requests":[]}`, true, 0, `"requests" is empty`},
		{"batch mixed with a request", `{"type":"read_file","requests":[` + read + `]}`, true, 0, `holds only "requests"`},
		{"id of the wrong type", `{"id":7,"type":"read_file","payload":{}}`, false, 0, "id"},
		{"id too long", `{"id":"` + strings.Repeat("x", maxIDBytes+1) + `","type":"read_file","payload":{}}`, false, 0, `"id" is 257 bytes`},
		{"batch item not an object", `{"requests":["read_file"]}`, true, 0, "requests[0]: want a JSON object"},
		{"invalid JSON", `{"type":`, false, 0, "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs, batch, err := decodeEvaluate([]byte(tc.body), 4)
			if tc.n == 0 {
				if err == nil {
					t.Fatalf("got %d requests, want an error", len(reqs))
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("got %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want %d requests", err, tc.n)
			}
			if batch != tc.batch || len(reqs) != tc.n {
				t.Errorf("got batch=%v n=%d, want batch=%v n=%d", batch, len(reqs), tc.batch, tc.n)
			}
		})
	}
	t.Run("batch over the limit", func(t *testing.T) {
		items := make([]string, 5)
		for i := range items {
			items[i] = read
		}
		_, _, err := decodeEvaluate([]byte(`{"requests":[`+strings.Join(items, ",")+`]}`), 4)
		var big *batchTooLarge
		if !errors.As(err, &big) || big.n != 5 {
			t.Errorf("got %v, want batchTooLarge of 5", err)
		}
	})
	t.Run("fields kept", func(t *testing.T) {
		reqs, _, err := decodeEvaluate([]byte(`{"id":"x","session":"s","parent":"p","type":"read_file","payload":{"path":"/a"},"result":"out"}`), 4)
		if err != nil {
			t.Fatal(err)
		}
		got := reqs[0]
		if got.ID != "x" || got.Session != "s" || got.Parent != "p" || got.Type != "read_file" ||
			string(got.Payload) != `{"path":"/a"}` || got.Result != "out" {
			t.Errorf("got %+v", got)
		}
	})
}

func TestDecodeObserve(t *testing.T) {
	cases := []struct {
		name        string
		body        string
		wantErr     string
		wantSession string
	}{
		{"ok", `{"session":"s1","type":"read_file","payload":{"path":"/a"},"result":"x"}`, "", "s1"},
		{"no session", `{"type":"read_file","payload":{"path":"/a"},"result":"x"}`, `needs a "session"`, ""},
		{"no type", `{"session":"s1","payload":{"path":"/a"},"result":"x"}`, `no "type"`, "s1"},
		{"unknown field keeps the session", `{"session":"s1","type":"read_file","payload":{},"output":"x"}`, `unknown field "output"`, "s1"},
		{"session after the bad field", `{"output":"x","session":"s9"}`, `unknown field "output"`, "s9"},
		{"not JSON", `session=s1`, "JSON object", ""},
		{"id is not an observe field", `{"id":"1","session":"s1","type":"read_file","payload":{}}`, `unknown field "id"`, "s1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := decodeObserve([]byte(tc.body))
			if tc.wantErr == "" && err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
			}
			if q.Session != tc.wantSession {
				t.Errorf("session: got %q, want %q", q.Session, tc.wantSession)
			}
		})
	}
}

// TestVerdictJSON: a verdict reads like a shield evaluate line plus "id".
func TestVerdictJSON(t *testing.T) {
	v := Verdict{ID: "r1", Verdict: verdict.Verdict{Decision: verdict.Escalate, Stage: verdict.StagePolicy, Tier: 2,
		Rule: "x", Reason: "needs <review> & more", Hash: "sha256:ab", NS: 42}}
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"r1","decision":"ESCALATE","stage":"policy","tier":2,"rule":"x","reason":"needs <review> & more","hash":"sha256:ab","ns":42}` + "\n"
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("round trip: got %+v (%v), want %+v", back, err, v)
	}
}

// FuzzDecodeEvaluate: no panic, and what decodes re-encodes to something
// that decodes to the same requests.
func FuzzDecodeEvaluate(f *testing.F) {
	for _, s := range []string{
		`{"id":"r1","session":"s1","type":"read_file","payload":{"path":"/w/a.go"}}`,
		`{"requests":[{"type":"execute_command","payload":{"command":"ls"}},{"type":"x","payload":null}]}`,
		`{"type":"a","type":"b"}`, `{"requests":null,"type":"x"}`, `{"requests":[]}`, `{}`, `[]`, `"x"`,
		`{"type":"x","payload":{"a":{"b":[1,2,{"c":"d"}]}}}`, `{"type":"x"}]`, "{\"type\":\"\\u0000\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reqs, batch, err := decodeEvaluate(body, 8)
		if err != nil {
			return
		}
		if len(reqs) == 0 || (!batch && len(reqs) != 1) || len(reqs) > 8 {
			t.Fatalf("decoded %d requests (batch %v) from %q", len(reqs), batch, body)
		}
		for i, q := range reqs {
			if q.Type == "" {
				t.Fatalf("request %d has no type: %q", i, body)
			}
		}
		again, err := json.Marshal(BatchRequest{Requests: reqs})
		if err != nil {
			t.Fatal(err)
		}
		reqs2, _, err := decodeEvaluate(again, 8)
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", again, err)
		}
		if fmt.Sprint(reqs2) != fmt.Sprint(reqs) && !rawEqual(reqs, reqs2) {
			t.Fatalf("round trip changed the requests: %q -> %s", body, again)
		}
	})
}

// rawEqual compares requests with payloads compared as JSON values.
func rawEqual(a, b []EvaluateRequest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		var px, py any
		_ = json.Unmarshal(x.Payload, &px)
		_ = json.Unmarshal(y.Payload, &py)
		x.Payload, y.Payload = nil, nil
		if fmt.Sprint(x) != fmt.Sprint(y) || fmt.Sprint(px) != fmt.Sprint(py) {
			return false
		}
	}
	return true
}
