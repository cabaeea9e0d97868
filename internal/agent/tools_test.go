package agent

import (
	"strings"
	"testing"

	"github.com/parallax/parallax/internal/toolgroup"
	"github.com/parallax/parallax/llm"
)

// The model is offered the tool table as it is (internal/toolgroup):
// the loaded groups' tools in table order with their descriptions and
// schemas, then load_tools naming the groups not loaded.
func TestToolsAreTheTable(t *testing.T) {
	ts := NewToolset()
	check := func(t *testing.T, got []llm.Tool, loaded map[string]bool) {
		t.Helper()
		var want []toolgroup.Tool
		var others []string
		for _, g := range toolgroup.Groups() {
			if loaded[g.Name] {
				want = append(want, g.Tools...)
			} else {
				others = append(others, g.Name)
			}
		}
		if len(got) != len(want)+1 {
			t.Fatalf("tools: got %d, want %d and load_tools", len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.Name != string(w.Type) || g.Description != w.Description || string(g.InputSchema) != w.Schema {
				t.Errorf("tool %d: got %s %q %s, want %s %q %s", i, g.Name, g.Description, g.InputSchema, w.Type, w.Description, w.Schema)
			}
		}
		meta := got[len(got)-1]
		if meta.Name != LoadToolsName {
			t.Fatalf("last tool: got %s, want %s", meta.Name, LoadToolsName)
		}
		for _, o := range others {
			if !strings.Contains(meta.Description, o+" (") {
				t.Errorf("load_tools description %q does not offer the group %s", meta.Description, o)
			}
		}
	}
	t.Run("core", func(t *testing.T) { check(t, ts.Tools(), map[string]bool{CoreGroup: true}) })
	if err := ts.Load(Groups()); err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, g := range Groups() {
		all[g] = true
	}
	t.Run("every group", func(t *testing.T) { check(t, ts.Tools(), all) })
	if _, ok := GroupOf(LoadToolsName); ok {
		t.Errorf("%s is also a tool of the table", LoadToolsName)
	}
}
