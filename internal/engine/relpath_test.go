package engine

import (
	"encoding/json"
	"testing"
)

func TestResolveRelative(t *testing.T) {
	for _, tc := range []struct{ typ, in, want string }{
		{"read_file", `{"path":"README.md"}`, `{"path":"/ws/README.md"}`},
		{"read_file", `{"path":"./src/../a.go","limit":3}`, `{"path":"/ws/a.go","limit":3}`},
		{"read_file", `{"path":"../escape"}`, `{"path":"/escape"}`},
		{"move_file", `{"source":"a","destination":"/tmp/b"}`, `{"source":"/ws/a","destination":"/tmp/b"}`},
		{"read_file", `{"path":"~/.ssh/id_rsa"}`, `{"path":"~/.ssh/id_rsa"}`},
		{"read_file", `{"path":"/abs"}`, `{"path":"/abs"}`},
		{"read_file", `{"path":1}`, `{"path":1}`},
		{"no_such_type", `{"path":"x"}`, `{"path":"x"}`},
		{"execute_command", `{"command":"cat x"}`, `{"command":"cat x"}`},
	} {
		got := resolveRelative(tc.typ, json.RawMessage(tc.in), "/ws")
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s %s: %v", tc.typ, tc.in, err)
		}
		_ = json.Unmarshal([]byte(tc.want), &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("%s %s: got %s, want %s", tc.typ, tc.in, got, tc.want)
		}
	}
}
