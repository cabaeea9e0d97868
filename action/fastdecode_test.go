package action

import (
	"bytes"
	"testing"
)

// The fast path must agree with the general decoder on everything it
// accepts: same command, and never an input the general path refuses.
func checkFastAgrees(t *testing.T, body []byte) {
	t.Helper()
	fp, ok := fastCommand(body)
	if !ok {
		return
	}
	var gp ExecuteCommandPayload
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		t.Fatalf("fast path accepted %q, which is not an object", body)
	}
	if err := decodeInto(&gp, trimmed); err != nil && fp.validate() == nil {
		t.Fatalf("fast path accepted %q; the general decoder refuses it: %v", body, err)
	}
	if gp != *fp {
		t.Fatalf("%q: fast path %+v, general %+v", body, *fp, gp)
	}
}

func TestFastCommand(t *testing.T) {
	for _, tc := range []struct {
		body string
		want string // "" = left to the general path
	}{
		{`{"command":"ls -la"}`, "ls -la"},
		{" \t\n{ \"command\" :\r\"echo \\\"hi\\\" \\\\ \\/ \\t\" }\n", "echo \"hi\" \\ / \t"},
		{"{\"command\":\"a\nb\"}", ""}, // raw control character: invalid JSON
		{`{"command":"a \u0026\u0026 b \u003cc\u003E \u0009"}`, "a && b <c> \t"},
		{`{"command":"caf\u00e9"}`, ""},
		{`{"command":"x\u00"}`, ""},                 // \u escape
		{"{\"command\":\"caf\xc3\xa9\"}", ""},       // non-ASCII
		{`{"command":"x","timeout_seconds":5}`, ""}, // another field
		{`{"command":"x","command":"y"}`, ""},       // duplicated key
		{`{"command":"x"} {}`, ""},                  // trailing data
		{`{"command":"x"`, ""},                      // unterminated
		{`{"command":"x\q"}`, ""},                   // bad escape
		{`{"Command":"x"}`, ""},                     // other spelling: the general path decides
		{`{"command":"x\`, ""},
	} {
		p, ok := fastCommand([]byte(tc.body))
		switch {
		case tc.want == "" && ok:
			t.Errorf("%q: fast path took it (%q), want the general path", tc.body, p.Command)
		case tc.want != "" && (!ok || p.Command != tc.want):
			t.Errorf("%q: fast path %v %+v, want %q", tc.body, ok, p, tc.want)
		}
		checkFastAgrees(t, []byte(tc.body))
	}
	// Through Decode the refusals stay refusals.
	for _, bad := range []string{`{"command":"x","command":"y"}`, `{"command":"x"} {}`, `{"command":""}`, "{\"command\":\"a\nb\"}"} {
		if _, err := Decode("execute_command", []byte(bad)); err == nil {
			t.Errorf("Decode accepted %q", bad)
		}
	}
}

func FuzzFastCommand(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"command":"echo \"a\\tb\" \/x"}`, ` {"command" : "x" } `,
		`{"command":"x\u0041"}`, `{"command":"cd /w \u0026\u0026 ls"}`, `{"command":"\u00ff\u007f"}`, `{"command":"x","command":"y"}`, `{"command":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastAgrees(t, b) })
}

func BenchmarkDecodeCommand(b *testing.B) {
	body := []byte(`{"command":"cd /home/dev/project && find . -name \"*.go\" | xargs grep -n TODO"}`)
	for b.Loop() {
		if _, err := Decode("execute_command", body); err != nil {
			b.Fatal(err)
		}
	}
}
