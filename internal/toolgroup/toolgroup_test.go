package toolgroup

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parallax/parallax/action"
)

// schema is the part of a tool's JSON Schema the tests read.
type schema struct {
	Type       string              `json:"type"`
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
}

type property struct {
	Type    string   `json:"type"`
	Minimum *float64 `json:"minimum"`
}

// tools lists every tool of the table, in order.
func tools() []Tool {
	var out []Tool
	for _, g := range Groups() {
		out = append(out, g.Tools...)
	}
	return out
}

func parseSchema(t *testing.T, tool Tool) schema {
	t.Helper()
	var s schema
	if err := json.Unmarshal([]byte(tool.Schema), &s); err != nil {
		t.Fatalf("%s: schema is not valid JSON: %v", tool.Type, err)
	}
	if s.Type != "object" {
		t.Fatalf("%s: schema type: got %q, want object", tool.Type, s.Type)
	}
	return s
}

// sample returns a type-correct value for the property name of type typ.
func sample(t *testing.T, tool Tool, name string, p property) any {
	t.Helper()
	switch p.Type {
	case "string":
		switch name {
		case "command":
			return "echo hi"
		case "pattern":
			return "TODO"
		case "content", "old", "new":
			return "some text"
		}
		return "/w/x" // path-like fields: path, source, destination
	case "integer":
		if p.Minimum != nil && *p.Minimum > 1 {
			return int64(*p.Minimum)
		}
		return 1
	case "boolean":
		return true
	}
	t.Fatalf("%s: property %q has type %q, which the test has no sample for", tool.Type, name, p.Type)
	return nil
}

// payload builds a payload from the schema's properties: the required
// ones only, or all.
func payload(t *testing.T, tool Tool, s schema, all bool) json.RawMessage {
	t.Helper()
	m := map[string]any{}
	for name, p := range s.Properties {
		if all || slices.Contains(s.Required, name) {
			m[name] = sample(t, tool, name, p)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeAll decodes a payload holding every schema property.
func decodeAll(t *testing.T, tool Tool) *action.Action {
	t.Helper()
	act, err := action.Decode(string(tool.Type), payload(t, tool, parseSchema(t, tool), true))
	if err != nil {
		t.Fatalf("%s: a payload with every schema property does not decode: %v", tool.Type, err)
	}
	return act
}

// payloadFields lists the JSON fields the action's payload decodes.
func payloadFields(t *testing.T, act *action.Action) []string {
	t.Helper()
	if specs, ok := action.Schema(act.Type); ok {
		var out []string
		for _, f := range specs {
			out = append(out, f.Name)
		}
		return out
	}
	rt := reflect.TypeOf(act.Payload)
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt.Kind() != reflect.Struct {
		t.Fatalf("%s: payload %s is not a struct", act.Type, rt)
	}
	return jsonFields(rt)
}

// jsonFields lists the JSON names encoding/json decodes into struct rt.
func jsonFields(rt reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(rt) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

func TestSchemasAreJSONObjects(t *testing.T) {
	for _, tool := range tools() {
		t.Run(string(tool.Type), func(t *testing.T) {
			s := parseSchema(t, tool)
			if len(s.Properties) == 0 {
				t.Errorf("schema has no properties")
			}
			for _, r := range s.Required {
				if _, ok := s.Properties[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
		})
	}
}

func TestRequiredPropertiesDecode(t *testing.T) {
	for _, tool := range tools() {
		t.Run(string(tool.Type), func(t *testing.T) {
			raw := payload(t, tool, parseSchema(t, tool), false)
			if _, err := action.Decode(string(tool.Type), raw); err != nil {
				t.Errorf("Decode(%s): got %v, want nil", raw, err)
			}
		})
	}
}

func TestEveryPropertyDecodes(t *testing.T) {
	for _, tool := range tools() {
		t.Run(string(tool.Type), func(t *testing.T) { decodeAll(t, tool) })
	}
}

// The schema the model sees and the payload the gate decodes name the
// same fields: a field missing from the schema is one the model cannot
// use, one missing from the payload a call that never decodes.
func TestSchemaAndPayloadNameTheSameFields(t *testing.T) {
	for _, tool := range tools() {
		t.Run(string(tool.Type), func(t *testing.T) {
			fields := payloadFields(t, decodeAll(t, tool))
			props := slices.Sorted(maps.Keys(parseSchema(t, tool).Properties))
			slices.Sort(fields)
			if !slices.Equal(props, fields) {
				t.Errorf("schema properties: got %v, want the payload's fields %v", props, fields)
			}
		})
	}
}

func TestNamesAreUniqueAndCoreComesFirst(t *testing.T) {
	groups := Groups()
	if len(groups) == 0 || groups[0].Name != Core {
		t.Fatalf("first group: want %q", Core)
	}
	seen := map[string]string{}
	for _, g := range groups {
		if g.Name == "" || g.Description == "" || len(g.Tools) == 0 {
			t.Errorf("group %q: a name, a description and tools are required", g.Name)
		}
		if by, ok := seen[g.Name]; ok {
			t.Errorf("group name %q: already used by %s", g.Name, by)
		}
		seen[g.Name] = "a group"
		for _, tool := range g.Tools {
			if !action.Known(tool.Type) {
				t.Errorf("%s: not an action type of the catalog", tool.Type)
			}
			if tool.Description == "" {
				t.Errorf("%s: no description", tool.Type)
			}
			if by, ok := seen[string(tool.Type)]; ok {
				t.Errorf("tool %s: name already used by %s", tool.Type, by)
			}
			seen[string(tool.Type)] = "group " + g.Name
		}
	}
}

// A read-only tool is what an off-the-record session may run: it must
// not name a path it writes or deletes, send data anywhere or need a
// snapshot.
func TestReadOnlyToolsWriteNothing(t *testing.T) {
	for _, tool := range tools() {
		if !tool.ReadOnly {
			continue
		}
		t.Run(string(tool.Type), func(t *testing.T) {
			for _, pf := range decodeAll(t, tool).Payload.PathFields() {
				if pf.Access&(action.AccessWrite|action.AccessDelete) != 0 {
					t.Errorf("path field %s: access %s, want read only", pf.Name, pf.Access)
				}
			}
			if s := action.SinkOf(tool.Type); s != action.SinkNone {
				t.Errorf("sink: got %s, want none", s)
			}
			if tool.Snapshot != SnapshotNone {
				t.Errorf("snapshot: got %s, want none", tool.Snapshot)
			}
		})
	}
}

// A tool's snapshot kind covers what its payload says it changes: its
// write and delete path fields, or its shell code.
func TestSnapshotCoversWhatTheToolChanges(t *testing.T) {
	for _, tool := range tools() {
		t.Run(string(tool.Type), func(t *testing.T) {
			act := decodeAll(t, tool)
			want := SnapshotNone
			for _, pf := range act.Payload.PathFields() {
				if pf.Access&(action.AccessWrite|action.AccessDelete) != 0 {
					want = SnapshotPaths
				}
			}
			if action.ShellCode(act) != "" {
				want |= SnapshotShell
			}
			if tool.Snapshot == SnapshotTree && action.SinkOf(tool.Type) == action.SinkFileWrite {
				return // the whole workspace covers everything
			}
			if tool.Snapshot != want {
				t.Errorf("snapshot: got %s, want %s", tool.Snapshot, want)
			}
			if got := SnapshotOf(tool.Type); got != tool.Snapshot {
				t.Errorf("SnapshotOf: got %s, want the table's %s", got, tool.Snapshot)
			}
		})
	}
}

func TestLookupsFailClosedOutsideTheTable(t *testing.T) {
	cases := []struct {
		typ      action.Type
		readOnly bool
		snapshot Snapshot
	}{
		{action.ReadFile, true, SnapshotNone},
		{action.WriteFile, false, SnapshotPaths},
		{action.ExecuteCommand, false, SnapshotShell},
		{action.GitStatus, false, SnapshotPaths | SnapshotShell},
		{action.GitCheckout, false, SnapshotPaths | SnapshotShell | SnapshotTree},
		{action.GitPull, false, SnapshotPaths | SnapshotShell | SnapshotTree},
		{action.HTTPRequest, false, SnapshotPaths | SnapshotShell},
		{"no_such_type", false, SnapshotPaths | SnapshotShell},
	}
	for _, c := range cases {
		t.Run(string(c.typ), func(t *testing.T) {
			if got := ReadOnly(c.typ); got != c.readOnly {
				t.Errorf("ReadOnly: got %v, want %v", got, c.readOnly)
			}
			if got := SnapshotOf(c.typ); got != c.snapshot {
				t.Errorf("SnapshotOf: got %s, want %s", got, c.snapshot)
			}
		})
	}
	if _, ok := Executors()[action.GitCheckout]; ok {
		t.Errorf("Executors: git_checkout has an executor kind, but the table does not offer it")
	}
}

func TestIndexesMatchTheTable(t *testing.T) {
	ex := Executors()
	var ro []action.Type
	n := 0
	for _, g := range Groups() {
		for _, tool := range g.Tools {
			n++
			if got, ok := GroupOf(tool.Type); !ok || got != g.Name {
				t.Errorf("GroupOf(%s): got %q, %v, want %q", tool.Type, got, ok, g.Name)
			}
			if got, _ := Lookup(tool.Type); !reflect.DeepEqual(got, tool) {
				t.Errorf("Lookup(%s): got %+v, want %+v", tool.Type, got, tool)
			}
			switch tool.Executor {
			case FilesExecutor, ShellExecutor:
			default:
				t.Errorf("%s: unknown executor kind %q", tool.Type, tool.Executor)
			}
			if ex[tool.Type] != tool.Executor {
				t.Errorf("Executors()[%s]: got %q, want %q", tool.Type, ex[tool.Type], tool.Executor)
			}
			if tool.ReadOnly {
				ro = append(ro, tool.Type)
			}
		}
	}
	if len(ex) != n {
		t.Errorf("Executors: got %d types, want the table's %d", len(ex), n)
	}
	if got := ReadOnlyTypes(); !slices.Equal(got, ro) {
		t.Errorf("ReadOnlyTypes: got %v, want %v", got, ro)
	}
}

func TestGroupsReturnsACopy(t *testing.T) {
	g := Groups()
	g[0].Tools[0].ReadOnly = !g[0].Tools[0].ReadOnly
	if Groups()[0].Tools[0].ReadOnly == g[0].Tools[0].ReadOnly {
		t.Errorf("changing the result of Groups changed the table")
	}
}

func TestSnapshotString(t *testing.T) {
	cases := []struct {
		s    Snapshot
		want string
	}{
		{SnapshotNone, "none"},
		{SnapshotPaths, "paths"},
		{SnapshotPaths | SnapshotShell | SnapshotTree, "paths|shell|tree"},
		{SnapshotTree | 0x80, "tree|0x80"},
	}
	for _, c := range cases {
		if got := c.s.String(); got != c.want {
			t.Errorf("Snapshot(%d).String(): got %q, want %q", uint8(c.s), got, c.want)
		}
	}
}
