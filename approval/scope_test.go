package approval

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

const (
	testHome = "/home/dev"
	testWS   = "/home/dev/project"
)

// scopeOf decodes, normalises and analyses an action as the gate does.
func scopeOf(t testing.TB, typ, payload string) Scope {
	t.Helper()
	a, err := action.Decode(typ, json.RawMessage(payload))
	if err != nil {
		t.Fatalf("decode %s: %v", payload, err)
	}
	if err := action.Normalize(a, action.Env{Home: testHome}); err != nil {
		t.Fatalf("normalise %s: %v", payload, err)
	}
	var eff *shell.Effects
	if a.Type == action.ExecuteCommand {
		eff = shell.Analyze(a.Payload.(*action.ExecuteCommandPayload).Command, shell.Options{Cwd: testWS, Home: testHome})
	}
	return ScopeOf(a, eff)
}

func TestScopeOf(t *testing.T) {
	tests := []struct {
		name, typ, payload string
		want               Scope
	}{
		{"copy", "execute_command", `{"command":"cp /home/dev/project/a /home/dev/other/b"}`,
			Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other/b", "/home/dev/project/a"}}},
		{"relative paths resolve", "execute_command", `{"command":"touch notes.txt"}`,
			Scope{Programs: []string{"touch"}, Paths: []string{"/home/dev/project/notes.txt"}}},
		{"network", "execute_command", `{"command":"curl -s https://API.example.com/v1"}`,
			Scope{Programs: []string{"curl"}, Hosts: []string{"api.example.com"}}},
		{"program by path", "execute_command", `{"command":"/home/dev/bin/tool --x"}`,
			Scope{Programs: []string{"/home/dev/bin/tool"}, Paths: []string{"/home/dev/bin/tool"}, Opaque: true}},
		{"pipeline", "execute_command", `{"command":"ls /home/dev/other | grep x"}`,
			Scope{Programs: []string{"grep", "ls"}, Paths: []string{"/home/dev/other"}}},
		{"interpreter", "execute_command", `{"command":"python3 -c 'print(1)'"}`, Scope{Programs: []string{"python3"}, Opaque: true}},
		{"glob", "execute_command", `{"command":"rm -f /home/dev/other/*.log"}`, Scope{Programs: []string{"rm"}, Paths: []string{"/home/dev/other/*.log"}, Opaque: true}},
		{"dynamic name", "execute_command", `{"command":"$TOOL /home/dev/other/a"}`, Scope{Opaque: true}},
		{"unknown program", "execute_command", `{"command":"frobnicate /home/dev/other/a"}`, Scope{Opaque: true}},
		{"write file", "write_file", `{"path":"~/other/a.txt","content":"x"}`, Scope{Paths: []string{"/home/dev/other/a.txt"}}},
		{"move", "move_file", `{"source":"/home/dev/a","destination":"/home/dev/b/c"}`, Scope{Paths: []string{"/home/dev/a", "/home/dev/b/c"}}},
		{"http", "http_request", `{"method":"GET","url":"https://Example.org:8443/x"}`, Scope{Hosts: []string{"example.org"}}},
		{"file url", "browser_navigate", `{"url":"file:///home/dev/other/x.html"}`, Scope{Paths: []string{"/home/dev/other/x.html"}}},
		{"mail", "send_email", `{"to":["a@example.org"],"subject":"s","body":"b"}`, Scope{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scopeOf(t, tc.typ, tc.payload)
			if tc.want.Opaque {
				if !got.Opaque {
					t.Fatalf("got %+v, want opaque", got)
				}
				return
			}
			if got.Opaque || !slices.Equal(got.Programs, tc.want.Programs) || !slices.Equal(got.Paths, tc.want.Paths) || !slices.Equal(got.Hosts, tc.want.Hosts) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestScopeOfNil(t *testing.T) {
	if s := ScopeOf(nil, nil); !s.Opaque {
		t.Error("nil action: want opaque")
	}
	a, err := action.Decode("execute_command", json.RawMessage(`{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := ScopeOf(a, nil); !s.Opaque {
		t.Error("command without effects: want opaque")
	}
}

func TestPatternMatches(t *testing.T) {
	p := Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev/other"}
	tests := []struct {
		name string
		typ  string
		s    Scope
		want bool
	}{
		{"inside", "execute_command", Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other/a"}}, true},
		{"the prefix itself", "execute_command", Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other"}}, true},
		{"sibling with the same start", "execute_command", Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/otherwise"}}, false},
		{"no path", "execute_command", Scope{Programs: []string{"cp"}}, false},
		{"another type", "write_file", Scope{Paths: []string{"/home/dev/other/a"}}, false},
		{"a program by path", "execute_command", Scope{Programs: []string{"/home/dev/other/cp"}, Paths: []string{"/home/dev/other/cp"}}, false},
		{"a host too", "execute_command", Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other/a"}, Hosts: []string{"x.example"}}, false},
		{"opaque", "execute_command", Scope{Programs: []string{"cp"}, Paths: []string{"/home/dev/other/a"}, Opaque: true}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Matches(tc.typ, tc.s); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPatternCheck(t *testing.T) {
	tests := []struct {
		name string
		p    Pattern
		ok   bool
	}{
		{"program and prefix", Pattern{ActionType: "execute_command", Program: "cp", PathPrefix: "/home/dev"}, true},
		{"host", Pattern{ActionType: "http_request", Host: "api.example.com"}, true},
		{"nothing named", Pattern{ActionType: "execute_command"}, false},
		{"root prefix", Pattern{ActionType: "write_file", PathPrefix: "/"}, false},
		{"one-level prefix", Pattern{ActionType: "write_file", PathPrefix: "/etc"}, false},
		{"relative prefix", Pattern{ActionType: "write_file", PathPrefix: "home/dev"}, false},
		{"unclean prefix", Pattern{ActionType: "write_file", PathPrefix: "/home/dev/"}, false},
		{"mail", Pattern{ActionType: "send_email", Host: "mail.example"}, false},
		{"wildcard host", Pattern{ActionType: "http_request", Host: "*.example"}, false},
		{"upper-case host", Pattern{ActionType: "http_request", Host: "API.example"}, false},
		{"relative program path", Pattern{ActionType: "execute_command", Program: "bin/tool"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.p.Check(); (err == nil) != tc.ok {
				t.Errorf("got %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
