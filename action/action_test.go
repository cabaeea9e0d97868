package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name, typ, payload, wantErr string
	}{
		{"ok read", "read_file", `{"path":"/a"}`, ""},
		{"ok extended", "clipboard_write", `{"text":"hi"}`, ""},
		{"ok mcp", "mcp_call", `{"server":"s","tool":"t","arguments":{"a":1}}`, ""},
		{"ok email list", "send_email", `{"to":["a@b.c"],"subject":"s","body":"b"}`, ""},
		{"unknown type", "launch_missiles", `{}`, "unknown action type"},
		{"unknown field", "read_file", `{"path":"/a","mode":"x"}`, `unknown field "mode"`},
		{"unknown extended field", "clipboard_write", `{"text":"hi","x":1}`, `unknown payload field "x"`},
		{"duplicate key", "read_file", `{"path":"/a","path":"/etc/shadow"}`, `duplicate key "path"`},
		{"nested duplicate", "mcp_call", `{"server":"s","tool":"t","arguments":{"a":1,"a":2}}`, "duplicate key"},
		{"wrong type", "read_file", `{"path":7}`, `payload field "path"`},
		{"missing required", "write_file", `{"content":"x"}`, `"path" is required`},
		{"not an object", "read_file", `["/a"]`, "must be a JSON object"},
		{"trailing data", "read_file", `{"path":"/a"} {"path":"/b"}`, "trailing data"},
		{"negative limit", "read_file", `{"path":"/a","limit":-1}`, "must not be negative"},
		{"mcp args not object", "mcp_call", `{"server":"s","tool":"t","arguments":[1]}`, "must be a JSON object"},
		{"schedule without work", "create_schedule", `{"cron":"* * * * *"}`, `needs "task" or "command"`},
		{"invalid json", "read_file", `{"path":`, "JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.typ, json.RawMessage(tt.payload))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDecodeTooLarge(t *testing.T) {
	big := `{"path":"/a","content":"` + strings.Repeat("x", MaxPayloadBytes) + `"}`
	if _, err := Decode("write_file", json.RawMessage(big)); err == nil {
		t.Fatal("got no error for an oversized payload, want one")
	}
}

func TestEveryTypeDecodes(t *testing.T) {
	for _, typ := range Types() {
		if _, err := Decode(string(typ), json.RawMessage(`{}`)); err != nil &&
			!strings.Contains(err.Error(), "required") && !strings.Contains(err.Error(), "needs") {
			t.Errorf("%s: got %v, want success or a missing-field error", typ, err)
		}
	}
	if n := len(Types()); n < 60 {
		t.Errorf("catalog has %d types, want at least 60", n)
	}
}

func TestNormalize(t *testing.T) {
	env := Env{Home: "/home/dev"}
	tests := []struct {
		name, typ, payload, want, wantErr string
	}{
		{"tilde", "read_file", `{"path":"~/notes.txt"}`, "/home/dev/notes.txt", ""},
		{"bare tilde", "list_directory", `{"path":"~"}`, "/home/dev", ""},
		{"dotdot", "read_file", `{"path":"/home/dev/project/../.ssh/id_rsa"}`, "/home/dev/.ssh/id_rsa", ""},
		{"relative", "read_file", `{"path":"notes.txt"}`, "", "must be absolute"},
		{"tilde user", "read_file", `{"path":"~root/x"}`, "", "must be absolute"},
		{"nul", "read_file", `{"path":"/a\u0000b"}`, "", "control character"},
		{"newline", "write_file", `{"path":"/a\nb","content":""}`, "", "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Decode(tt.typ, json.RawMessage(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			err = Normalize(a, env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := *a.Payload.PathFields()[0].Path; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func mustHash(t *testing.T, typ, payload string) string {
	t.Helper()
	a, err := Decode(typ, json.RawMessage(payload))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Hash(a)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHashCanonical(t *testing.T) {
	same := [][2]string{
		{`{"path":"/a","limit":10}`, `{"limit":10, "path":"/a"}`},
		{`{"path":"/a","limit":10}`, `{"path":"/a","limit":1e1}`},
		{`{"path":"/a","limit":10}`, `{"path":"/a","limit":10.0}`},
		{`{"path":"/a"}`, `{"path":"/a","limit":0}`},
	}
	for i, p := range same {
		if a, b := mustHash(t, "read_file", p[0]), mustHash(t, "read_file", p[1]); a != b {
			t.Errorf("case %d: got different hashes %s and %s, want equal", i, a, b)
		}
	}
	mcpA := mustHash(t, "mcp_call", `{"server":"s","tool":"t","arguments":{"b":[1,2.50],"a":{"y":1,"x":true}}}`)
	mcpB := mustHash(t, "mcp_call", `{"tool":"t","arguments":{"a":{"x":true,"y":1.0},"b":[1e0,2.5]},"server":"s"}`)
	if mcpA != mcpB {
		t.Errorf("mcp: got %s and %s, want equal", mcpA, mcpB)
	}
	if a, b := mustHash(t, "read_file", `{"path":"/a"}`), mustHash(t, "list_directory", `{"path":"/a"}`); a == b {
		t.Error("different types hash alike")
	}
	if a, b := mustHash(t, "read_file", `{"path":"/a"}`), mustHash(t, "read_file", `{"path":"/b"}`); a == b {
		t.Error("different paths hash alike")
	}
	if h := mustHash(t, "mcp_call", `{"server":"s","tool":"t","arguments":{"n":1e999999}}`); !strings.HasPrefix(h, "sha256:") {
		t.Errorf("got %q for a huge number, want a hash", h)
	}
}

func TestVerify(t *testing.T) {
	a, err := Decode("write_file", json.RawMessage(`{"path":"/home/dev/project/a","content":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Hash(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(a, h); err != nil {
		t.Fatalf("got %v for an unchanged action, want nil", err)
	}
	a.Payload.(*WriteFilePayload).Path = "/home/dev/.bashrc"
	if err := Verify(a, h); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("got %v after a swap, want ErrHashMismatch", err)
	}
}

func TestSinks(t *testing.T) {
	if !SinkOf(SendEmail).External() || SinkOf(ReadFile).External() {
		t.Error("sink externality is wrong")
	}
	if SinkOf(ExecuteCommand) != SinkShell {
		t.Error("execute_command is not a shell sink")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("read_file", `{"path":"~/a"}`)
	f.Add("mcp_call", `{"server":"s","tool":"t","arguments":{"a":[1,{"b":2}]}}`)
	f.Add("send_email", `{"to":"a@b","subject":"s","body":"b","attachments":["/x"]}`)
	f.Add("clipboard_write", `{"text":"x"}`)
	f.Add("mcp_call", `{"server":"s","tool":"t","arguments":{"a":`+nested(80)+`}}`)
	f.Add("read_file", "{\"path\":\"/tmp/\xff\"}")
	f.Add("execute_command", `{"command":"ls \ud800"}`)
	f.Fuzz(func(t *testing.T, typ, payload string) {
		a, err := Decode(typ, json.RawMessage(payload))
		if err != nil {
			return
		}
		if err := Normalize(a, Env{Home: "/home/dev"}); err != nil {
			return
		}
		h1, err1 := Hash(a)
		h2, err2 := Hash(a)
		if (err1 == nil) != (err2 == nil) || h1 != h2 {
			t.Fatalf("hash not stable: %s %s", h1, h2)
		}
		if err1 == nil {
			if err := Verify(a, h1); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestDuplicateKeyWhitespace(t *testing.T) {
	if _, err := Decode("read_file", json.RawMessage("{\"path\"\t:\"/a\",\"path\"\n:\"/b\"}")); err == nil {
		t.Fatal("got no error for a duplicate key spelled with white space, want one")
	}
}

func TestFileURLPathAndShellCode(t *testing.T) {
	tests := []struct {
		typ, payload, path string
		ok                 bool
	}{
		{"http_request", `{"method":"GET","url":"file:///etc/passwd"}`, "/etc/passwd", true},
		{"http_request", `{"method":"GET","url":"FILE://localhost/home/dev/../dev/.env"}`, "/home/dev/.env", true},
		{"http_request", `{"method":"GET","url":"file://server/share/x"}`, "/", true},
		{"http_request", `{"method":"GET","url":"https://example.com/file:///etc"}`, "", false},
		{"read_file", `{"path":"/a"}`, "", false},
	}
	for _, tc := range tests {
		a, err := Decode(tc.typ, []byte(tc.payload))
		if err != nil {
			t.Fatal(err)
		}
		p, ok := FileURLPath(a)
		if p != tc.path || ok != tc.ok {
			t.Errorf("FileURLPath(%s): got %q %v, want %q %v", tc.payload, p, ok, tc.path, tc.ok)
		}
	}
	a, err := Decode("execute_command", []byte(`{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ShellCode(a) != "ls" {
		t.Errorf("ShellCode: got %q", ShellCode(a))
	}
}

func TestCheckDuplicateKeysFast(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	tests := []struct{ in, want string }{
		{`{"a":1,"b":{"a":2}}`, ""},
		{`{"a":1,"a":2}`, `duplicate key "a" in payload`},
		{`{"a":{"b":[{"c":1,"c":2}]}}`, `duplicate key "c" in payload.a.b[]`},
		{`{"a":1,"\u0061":2}`, `duplicate key "a"`},
		{`{"x":"a\",\"a","a":1}`, ""},
		{`{"a":["a","a"],"b":"a"}`, ""},
		{many + `"k7":1}`, `duplicate key "k7"`},
		{many + `"z":1}`, ""},
		{`{"a":1`, "invalid JSON"},
	}
	for _, tc := range tests {
		err := CheckDuplicateKeys([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want no error", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzDuplicateKeys: the one-pass check agrees with encoding/json's
// tokenizer on every valid JSON input.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"c":2}]}}`, `{"a":1,"\u0061":2}`, `[{"x":"\"y"}]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || CheckBounds([]byte(s)) != nil {
			return // the bounds pre-scan refuses before either walk
		}
		fast, slow := CheckDuplicateKeys([]byte(s)), dupWalkSlow([]byte(s))
		if (fast == nil) != (slow == nil) {
			t.Fatalf("%q: one pass says %v, the tokenizer %v", s, fast, slow)
		}
	})
}
