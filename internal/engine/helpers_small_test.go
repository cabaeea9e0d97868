package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

func TestTailLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "engine.log")
	if _, err := tailLog(p, 5); err == nil || !strings.Contains(err.Error(), "no engine log") {
		t.Fatalf("missing log: %v", err)
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("evil \x1b]0;title\x07end\n")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := tailLog(p, 3)
	if err != nil || got != "line 98\nline 99\nevil end" {
		t.Fatalf("got %q, %v", got, err)
	}
}
