package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MCPCallPayload is mcp_call: a tool on an MCP server with free-form
// arguments (a JSON object).
type MCPCallPayload struct {
	noPaths
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func (p *MCPCallPayload) validate() error {
	if err := firstErr(required("server", p.Server), required("tool", p.Tool)); err != nil {
		return err
	}
	if len(p.Arguments) == 0 {
		p.Arguments = json.RawMessage("{}")
		return nil
	}
	if b := bytes.TrimSpace(p.Arguments); len(b) == 0 || b[0] != '{' {
		return fmt.Errorf("payload field %q must be a JSON object", "arguments")
	}
	return nil
}

// Texts implements Payload: every string inside the arguments, by JSON path.
func (p *MCPCallPayload) Texts() []TextField {
	var v any
	if err := json.Unmarshal(p.Arguments, &v); err != nil {
		return []TextField{{"arguments", string(p.Arguments)}}
	}
	var out []TextField
	collectStrings("arguments", v, &out)
	return out
}

// maxTextPath bounds the path of a TextField. Paths are built per
// string: unbounded, one long key over many strings cost its length once
// per string (a 720 KB line took 24 GB).
const maxTextPath = 256

// subPath returns prefix+part clipped to maxTextPath; a clipped prefix is
// returned as it is, without a copy.
func subPath(prefix, part string) string {
	if len(prefix) >= maxTextPath {
		return prefix
	}
	p := prefix + part
	if len(p) >= maxTextPath {
		p = strings.ToValidUTF8(p[:maxTextPath-len("…")], "") + "…"
		for len(p) < maxTextPath {
			p += "…" // pad, so that it counts as clipped
		}
	}
	return p
}

func collectStrings(prefix string, v any, out *[]TextField) {
	switch t := v.(type) {
	case string:
		*out = append(*out, TextField{prefix, t})
	case []any:
		for i, e := range t {
			part := ""
			if len(prefix) < maxTextPath {
				part = "[" + strconv.Itoa(i) + "]"
			}
			collectStrings(subPath(prefix, part), e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectStrings(subPath(prefix, "."+k), t[k], out)
		}
	}
}

// FieldKind is the JSON shape and meaning of a schema field.
type FieldKind uint8

// Field kinds of extended (schema-described) payloads.
const (
	FieldString FieldKind = iota
	FieldText             // free text that leaves through the action's sink
	FieldReadPath
	FieldWritePath
	FieldInt
	FieldBool
	FieldStrings
)

// FieldSpec is one field of an extended payload schema.
type FieldSpec struct {
	Name     string
	Kind     FieldKind
	Required bool
}

type extInfo struct {
	sink   Sink
	fields []FieldSpec
}

func f(name string, k FieldKind) FieldSpec   { return FieldSpec{name, k, false} }
func req(name string, k FieldKind) FieldSpec { return FieldSpec{name, k, true} }

// extended is the rest of the seeds' catalog: names and payload schemas.
// Their executors arrive later; the gate already decodes and judges them.
var extended = map[Type]extInfo{
	"clipboard_read":    {SinkNone, nil},
	"clipboard_write":   {SinkNone, []FieldSpec{req("text", FieldText)}},
	"notify":            {SinkNone, []FieldSpec{req("title", FieldString), f("body", FieldText)}},
	"open_url":          {SinkBrowser, []FieldSpec{req("url", FieldText)}},
	"open_file":         {SinkShell, []FieldSpec{req("path", FieldReadPath)}},
	"screenshot":        {SinkNone, []FieldSpec{f("display", FieldString)}},
	"canvas_create":     {SinkNone, []FieldSpec{f("title", FieldString), req("content", FieldText)}},
	"canvas_update":     {SinkNone, []FieldSpec{req("id", FieldString), req("content", FieldText)}},
	"generate_image":    {SinkHTTP, []FieldSpec{req("prompt", FieldText), f("path", FieldWritePath)}},
	"generate_video":    {SinkHTTP, []FieldSpec{req("prompt", FieldText), f("path", FieldWritePath)}},
	"web_search":        {SinkHTTP, []FieldSpec{req("query", FieldText)}},
	"reply_email":       {SinkEmail, []FieldSpec{req("id", FieldString), req("body", FieldText), f("attachments", FieldStrings)}},
	"move_email":        {SinkNone, []FieldSpec{req("id", FieldString), req("folder", FieldString)}},
	"delete_email":      {SinkNone, []FieldSpec{req("id", FieldString)}},
	"update_event":      {SinkMessage, []FieldSpec{req("id", FieldString), f("title", FieldText), f("start", FieldString), f("end", FieldString), f("description", FieldText)}},
	"delete_event":      {SinkMessage, []FieldSpec{req("id", FieldString)}},
	"memory_delete":     {SinkMemory, []FieldSpec{req("key", FieldString)}},
	"list_agents":       {SinkNone, nil},
	"stop_agent":        {SinkAgent, []FieldSpec{req("agent", FieldString)}},
	"speak":             {SinkNone, []FieldSpec{req("text", FieldText)}},
	"transcribe":        {SinkNone, []FieldSpec{req("path", FieldReadPath)}},
	"read_document":     {SinkNone, []FieldSpec{req("path", FieldReadPath), f("pages", FieldString)}},
	"download_file":     {SinkHTTP, []FieldSpec{req("url", FieldText), req("path", FieldWritePath)}},
	"list_mcp_tools":    {SinkNone, []FieldSpec{f("server", FieldString)}},
	"browser_scroll":    {SinkNone, []FieldSpec{f("selector", FieldString), f("pixels", FieldInt)}},
	"browser_back":      {SinkNone, nil},
	"browser_close":     {SinkNone, nil},
	"system_info":       {SinkNone, nil},
	"archive_extract":   {SinkFileWrite, []FieldSpec{req("path", FieldReadPath), req("destination", FieldWritePath)}},
	"archive_create":    {SinkFileWrite, []FieldSpec{req("paths", FieldStrings), req("destination", FieldWritePath)}},
	"calendar_freebusy": {SinkNone, []FieldSpec{f("from", FieldString), f("to", FieldString)}},
}

var extendedOrder = func() []Type {
	out := make([]Type, 0, len(extended))
	for t := range extended {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}()

// Schema returns the field schema of an extended type (nil, false for core
// types, which are Go structs).
func Schema(t Type) ([]FieldSpec, bool) {
	e, ok := extended[t]
	return e.fields, ok
}

type genericField struct {
	spec FieldSpec
	set  bool
	str  string
	num  int64
	b    bool
	list []string
}

// GenericPayload is the body of an extended action, checked against its
// schema as strictly as a core payload.
type GenericPayload struct {
	fields []genericField
}

func newGeneric(specs []FieldSpec) *GenericPayload {
	g := &GenericPayload{fields: make([]genericField, len(specs))}
	for i, s := range specs {
		g.fields[i].spec = s
	}
	return g
}

// UnmarshalJSON decodes an object strictly against the schema.
func (g *GenericPayload) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("payload must be a JSON object: %w", err)
	}
	for name, raw := range m {
		i := g.index(name)
		if i < 0 {
			return fmt.Errorf("unknown payload field %q", name)
		}
		if err := g.fields[i].decode(raw); err != nil {
			return fmt.Errorf("payload field %q: %w", name, err)
		}
	}
	return nil
}

func (g *GenericPayload) index(name string) int {
	for i := range g.fields {
		if g.fields[i].spec.Name == name {
			return i
		}
	}
	return -1
}

func (f *genericField) decode(raw json.RawMessage) error {
	f.set = true
	switch f.spec.Kind {
	case FieldInt:
		var n Int
		err := n.UnmarshalJSON(raw)
		f.num = int64(n)
		return err
	case FieldBool:
		return json.Unmarshal(raw, &f.b)
	case FieldStrings:
		var l StringList
		err := l.UnmarshalJSON(raw)
		f.list = l
		return err
	case FieldString, FieldText, FieldReadPath, FieldWritePath:
		return json.Unmarshal(raw, &f.str)
	}
	return fmt.Errorf("unsupported field kind %d", f.spec.Kind)
}

// MarshalJSON writes the set fields (for the canonical hash).
func (g *GenericPayload) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(g.fields))
	for _, f := range g.fields {
		if !f.set {
			continue
		}
		switch f.spec.Kind {
		case FieldInt:
			m[f.spec.Name] = f.num
		case FieldBool:
			m[f.spec.Name] = f.b
		case FieldStrings:
			m[f.spec.Name] = f.list
		case FieldString, FieldText, FieldReadPath, FieldWritePath:
			m[f.spec.Name] = f.str
		}
	}
	return json.Marshal(m)
}

// Get returns a string field's value.
func (g *GenericPayload) Get(name string) string {
	if i := g.index(name); i >= 0 {
		return g.fields[i].str
	}
	return ""
}

func (g *GenericPayload) validate() error {
	for _, f := range g.fields {
		if f.spec.Required && (!f.set || (f.str == "" && f.spec.Kind != FieldInt &&
			f.spec.Kind != FieldBool && len(f.list) == 0)) {
			return fmt.Errorf("payload field %q is required", f.spec.Name)
		}
	}
	return nil
}

// PathFields implements Payload.
func (g *GenericPayload) PathFields() []PathField {
	var out []PathField
	for i := range g.fields {
		f := &g.fields[i]
		switch {
		case f.spec.Kind == FieldReadPath && f.set:
			out = append(out, PathField{f.spec.Name, &f.str, AccessRead})
		case f.spec.Kind == FieldWritePath && f.set:
			out = append(out, PathField{f.spec.Name, &f.str, AccessWrite})
		case f.spec.Kind == FieldStrings && (f.spec.Name == "paths" || f.spec.Name == "attachments"):
			for j := range f.list {
				out = append(out, PathField{fmt.Sprintf("%s[%d]", f.spec.Name, j), &f.list[j], AccessRead})
			}
		}
	}
	return out
}

// Texts implements Payload.
func (g *GenericPayload) Texts() []TextField {
	var out []TextField
	for _, f := range g.fields {
		if f.spec.Kind == FieldText && f.set {
			out = append(out, TextField{f.spec.Name, f.str})
		}
	}
	return out
}
