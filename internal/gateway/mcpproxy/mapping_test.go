package mcpproxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

var testEnv = MapEnv{Server: "fs", Dir: "/home/dev/project", Workspace: "/home/dev/project",
	Roots:     Roots{Dirs: []string{"/home/dev/project"}, Source: "--root"},
	Sensitive: func(s string) bool { return strings.Contains(s, "AKIA") }}

func TestMap(t *testing.T) {
	tests := []struct {
		name, tool, args string
		env              *MapEnv
		wantShape        string
		wantType         action.Type
		wantPayload      string
		wantExtra        string // arguments of the extra mcp_call ("" none)
	}{
		{"command", "run_command", `{"command":"ls -la"}`, nil, "shell_command", action.ExecuteCommand, `{"command":"ls -la"}`, ""},
		{"command argv and cwd", "exec", `{"command":"git","args":["log","-n","1"],"cwd":"sub dir"}`, nil, "shell_command",
			action.ExecuteCommand, `{"command":"cd '/home/dev/project/sub dir' \u0026\u0026 git log -n 1"}`, ""},
		{"command array", "shell", `{"command":["rm","-rf","a b"]}`, nil, "shell_command", action.ExecuteCommand, `{"command":"rm -rf 'a b'"}`, ""},
		{"command outside workspace", "run", `{"command":"make"}`, &MapEnv{Server: "s", Dir: "/srv/app", Workspace: "/home/dev/project"},
			"shell_command", action.ExecuteCommand, `{"command":"cd /srv/app \u0026\u0026 make"}`, ""},
		{"read relative", "read_file", `{"path":"notes.txt","encoding":"utf-8"}`, nil, "file_read", action.ReadFile,
			`{"path":"/home/dev/project/notes.txt"}`, ""},
		{"read home", "view", `{"file_path":"~/.ssh/id_rsa"}`, nil, "file_read", action.ReadFile, `{"path":"~/.ssh/id_rsa"}`, ""},
		{"read file url", "open", `{"path":"file:///etc/passwd"}`, nil, "file_read", action.ReadFile, `{"path":"/etc/passwd"}`, ""},
		{"write", "write_file", `{"path":"/tmp/x","content":"hi"}`, nil, "file_write", action.WriteFile, `{"content":"hi","path":"/tmp/x"}`, ""},
		{"append camel", "appendToFile", `{"path":"log.txt","text":"x"}`, nil, "file_write", action.WriteFile,
			`{"append":true,"content":"x","path":"/home/dev/project/log.txt"}`, ""},
		{"edit", "edit_file", `{"path":"a.go","old_string":"x","new_string":"y"}`, nil, "file_edit", action.EditFile,
			`{"new":"y","old":"x","path":"/home/dev/project/a.go"}`, ""},
		{"delete", "delete_file", `{"path":"/tmp/x","recursive":true}`, nil, "file_delete", action.DeleteFile, `{"path":"/tmp/x","recursive":true}`, ""},
		{"move", "move_file", `{"source":"a","destination":"/tmp/b"}`, nil, "file_move", action.MoveFile,
			`{"destination":"/tmp/b","source":"/home/dev/project/a"}`, ""},
		{"mkdir", "create_directory", `{"path":"build"}`, nil, "directory_create", action.CreateDirectory, `{"path":"/home/dev/project/build"}`, ""},
		{"list", "list_directory", `{"path":"."}`, nil, "directory_list", action.ListDirectory, `{"path":"/home/dev/project"}`, ""},
		{"search", "search_files", `{"path":"/src","pattern":"*.go"}`, nil, "file_search", action.SearchFiles, `{"path":"/src","pattern":"*.go"}`, ""},
		{"fetch", "fetch", `{"url":"https://example.com/a","max_length":5000}`, nil, "url_request", action.HTTPRequest,
			`{"method":"GET","url":"https://example.com/a"}`, ""},
		{"post with body", "http", `{"url":"https://api.example.com","method":"post","body":{"a":1}}`, nil, "url_request",
			action.HTTPRequest, `{"body":"{\"a\":1}","method":"POST","url":"https://api.example.com"}`, ""},
		{"download", "download_file", `{"url":"https://example.com/x.tgz","path":"x.tgz"}`, nil, "download", "download_file",
			`{"path":"/home/dev/project/x.tgz","url":"https://example.com/x.tgz"}`, ""},
		{"mutating name with path stays mcp_call", "truncate_file", `{"path":"a.txt"}`, nil, "mcp_call", action.MCPCall,
			`{"server":"fs","tool":"truncate_file","arguments":{"path":"a.txt"}}`, ""},
		{"mutating name with url stays mcp_call", "post_webhook", `{"url":"https://hooks.example.com/x"}`, nil, "mcp_call", action.MCPCall,
			`{"server":"fs","tool":"post_webhook","arguments":{"url":"https://hooks.example.com/x"}}`, ""},
		{"unknown shape", "create_issue", `{"title":"bug","body":"it broke"}`, nil, "mcp_call", action.MCPCall,
			`{"server":"fs","tool":"create_issue","arguments":{"title":"bug","body":"it broke"}}`, ""},
		{"no arguments", "list_tables", ``, nil, "mcp_call", action.MCPCall, `{"server":"fs","tool":"list_tables","arguments":{}}`, ""},
		{"non-url uri", "get_doc", `{"uri":"s3://bucket/key"}`, nil, "mcp_call", action.MCPCall,
			`{"server":"fs","tool":"get_doc","arguments":{"uri":"s3://bucket/key"}}`, ""},
		{"significant leftovers judged", "read_file", `{"path":"a","note":"AKIAXXXX","also":"/etc/passwd","n":3,"fmt":"json"}`, nil,
			"file_read", action.ReadFile, `{"path":"/home/dev/project/a"}`, `{"also":"/etc/passwd","note":"AKIAXXXX"}`},
		{"structured leftovers judged", "run_command", `{"command":"ls","env":{"A":"1"}}`, nil, "shell_command",
			action.ExecuteCommand, `{"command":"ls"}`, `{"env":{"A":"1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv
			if tt.env != nil {
				env = *tt.env
			}
			m, err := Map(tt.tool, json.RawMessage(tt.args), env)
			if err != nil {
				t.Fatal(err)
			}
			if m.Shape != tt.wantShape || m.Primary.Type != string(tt.wantType) {
				t.Errorf("shape: got %s/%s, want %s/%s", m.Shape, m.Primary.Type, tt.wantShape, tt.wantType)
			}
			if got := string(m.Primary.Payload); !sameJSON(got, tt.wantPayload) {
				t.Errorf("payload: got %s, want %s", got, tt.wantPayload)
			}
			switch {
			case tt.wantExtra == "" && m.Extra != nil:
				t.Errorf("extra: got %s, want none", m.Extra.Payload)
			case tt.wantExtra != "":
				if m.Extra == nil {
					t.Fatalf("extra: got none, want %s", tt.wantExtra)
				}
				var p action.MCPCallPayload
				if err := json.Unmarshal(m.Extra.Payload, &p); err != nil {
					t.Fatal(err)
				}
				if !sameJSON(string(p.Arguments), tt.wantExtra) {
					t.Errorf("extra: got %s, want %s", p.Arguments, tt.wantExtra)
				}
			}
			// Every mapped action must decode strictly as its catalog type.
			if _, err := action.Decode(m.Primary.Type, m.Primary.Payload); err != nil {
				t.Errorf("decode %s: %v", m.Primary.Type, err)
			}
		})
	}
}

func TestMapRefuses(t *testing.T) {
	for _, args := range []string{`[1,2]`, `"x"`, `{"path":"a","path":"/etc/shadow"}`, `{"a":{"b":1,"b":2}}`, `{"a":`} {
		if _, err := Map("read_file", json.RawMessage(args), testEnv); err == nil {
			t.Errorf("%s: got no error, want a refusal", args)
		}
	}
}

func TestNameWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"read_file", "file read"}, {"writeFile", "file write"}, {"fs.listDirectory", "directory fs list"},
		{"HTTPRequest", "http request"}, {"create-or-update-file", "create file or update"},
	}
	for _, tt := range tests {
		w := nameWords(tt.in)
		for _, want := range strings.Fields(tt.want) {
			if !w[want] {
				t.Errorf("%s: got %v, want word %q", tt.in, w, want)
			}
		}
		if len(w) != len(strings.Fields(tt.want)) {
			t.Errorf("%s: got %v, want %s", tt.in, w, tt.want)
		}
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// FuzzMap: any tool name and arguments map without panic, to a request
// that decodes strictly (or to an error), the same way twice.
func FuzzMap(f *testing.F) {
	f.Add("read_file", `{"path":"a"}`)
	f.Add("run", `{"command":["a","b"],"args":["c"],"cwd":"x"}`)
	f.Add("fetch", `{"url":"https://x","headers":{"a":"b"},"body":{"k":[1]}}`)
	f.Add("x", `{"a":{"b":[{"c":1}]}}`)
	f.Fuzz(func(t *testing.T, tool, args string) {
		m1, err1 := Map(tool, json.RawMessage(args), testEnv)
		m2, err2 := Map(tool, json.RawMessage(args), testEnv)
		if (err1 == nil) != (err2 == nil) || string(m1.Primary.Payload) != string(m2.Primary.Payload) {
			t.Fatalf("unstable: %v %s / %v %s", err1, m1.Primary.Payload, err2, m2.Primary.Payload)
		}
		if err1 != nil {
			return
		}
		if m1.Primary.Type == "" || len(m1.Primary.Payload) == 0 {
			t.Fatalf("empty request for %q %q", tool, args)
		}
	})
}

func BenchmarkMap(b *testing.B) {
	args := json.RawMessage(`{"path":"src/main.go","encoding":"utf-8","limit":200}`)
	for b.Loop() {
		if _, err := Map("read_file", args, testEnv); err != nil {
			b.Fatal(err)
		}
	}
}
