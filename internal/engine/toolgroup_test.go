package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/toolgroup"
)

// The engine runs exactly the tools the table offers the model, each
// with the executor the table names: no tool is offered that nothing
// runs, and nothing runs that the model is not offered.
func TestToolExecutorsRunExactlyTheTable(t *testing.T) {
	got := ToolExecutors(ToolsConfig{})
	want := toolgroup.Executors()
	for typ, kind := range want {
		ex, ok := got[typ]
		if !ok {
			t.Errorf("%s: the table offers it, no executor runs it", typ)
			continue
		}
		var right bool
		switch kind {
		case toolgroup.FilesExecutor:
			_, right = ex.(*filesExecutor)
		case toolgroup.ShellExecutor:
			_, right = ex.(*shellExecutor)
		}
		if !right {
			t.Errorf("%s: got executor %T, want the %s executor", typ, ex, kind)
		}
	}
	for typ := range got {
		if _, ok := want[typ]; !ok {
			t.Errorf("%s: an executor runs it, the table does not offer it", typ)
		}
	}
}

// What Chronicle snapshots before a call is what the table says the
// tool changes; a type outside it is snapshotted conservatively.
func TestSnapshotTargetsFollowTheToolTable(t *testing.T) {
	p := &Pipeline{cfg: Config{Workspace: "/w", Home: "/h"}}
	cases := []struct {
		typ     action.Type
		payload map[string]any
		want    []string // path:access
	}{
		{action.ReadFile, map[string]any{"path": "/w/a"}, nil},
		{action.SearchFiles, map[string]any{"path": "/w", "pattern": "x"}, nil},
		{action.WriteFile, map[string]any{"path": "/w/a", "content": "x"}, []string{"/w/a:write"}},
		{action.EditFile, map[string]any{"path": "/w/a", "old": "x", "new": "y"}, []string{"/w/a:read+write"}},
		{action.MoveFile, map[string]any{"source": "/w/a", "destination": "/w/b"}, []string{"/w/a:read+delete", "/w/b:write"}},
		{action.CopyFile, map[string]any{"source": "/w/a", "destination": "/w/b"}, []string{"/w/b:write"}},
		{action.DeleteFile, map[string]any{"path": "/w/a"}, []string{"/w/a:delete"}},
		{action.ExecuteCommand, map[string]any{"command": "echo hi > /w/out"}, []string{"/w/out:write"}},
		{action.ExecuteCommand, map[string]any{"command": "cat /w/a"}, nil},
		// Outside the table: git rewrites the working tree it does not name.
		{action.GitCheckout, map[string]any{"ref": "main"}, []string{"/w:write"}},
		{action.GitPull, map[string]any{}, []string{"/w:write"}},
		{action.HTTPRequest, map[string]any{"method": "GET", "url": "https://example.com/"}, nil},
	}
	for _, c := range cases {
		t.Run(string(c.typ), func(t *testing.T) {
			raw, err := json.Marshal(c.payload)
			if err != nil {
				t.Fatal(err)
			}
			act, err := action.Decode(string(c.typ), raw)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range p.targets(act) {
				got = append(got, fmt.Sprintf("%s:%s", tg.Path, tg.Access))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("targets: got %v, want %v", got, c.want)
			}
		})
	}
}

// The refusal an off-the-record session gets names the table's
// read-only tools.
func TestOTRRefusalNamesTheReadOnlyTools(t *testing.T) {
	for _, typ := range toolgroup.ReadOnlyTypes() {
		if !strings.Contains(otrRefusal, string(typ)) {
			t.Errorf("refusal %q does not name %s", otrRefusal, typ)
		}
	}
	cases := []struct {
		in   []action.Type
		want string
	}{
		{nil, ""},
		{[]action.Type{"a"}, "a"},
		{[]action.Type{"a", "b"}, "a and b"},
		{[]action.Type{"a", "b", "c"}, "a, b and c"},
	}
	for _, c := range cases {
		if got := andList(c.in); got != c.want {
			t.Errorf("andList(%v): got %q, want %q", c.in, got, c.want)
		}
	}
}
