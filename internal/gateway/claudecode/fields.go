package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/parallax/parallax/action"
)

// fields reads one tool_input object. Every field a mapper reads or
// deliberately drops is marked known; what is left is unknown, and an
// action with unknown fields is never let through without a human (see
// Mapped.Unknown).
type fields struct {
	tool   string
	prefix string // "edits[0]." for nested objects
	raw    map[string]json.RawMessage
	known  map[string]bool
}

func newFields(tool, prefix string, b json.RawMessage) (*fields, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s input%s: want a JSON object: %v", tool, trimDot(prefix), err)
	}
	return &fields{tool: tool, prefix: prefix, raw: raw, known: map[string]bool{}}, nil
}

func trimDot(p string) string {
	if p == "" {
		return ""
	}
	return " " + p[:len(p)-1]
}

// present reports whether the field is set to something other than null.
func (f *fields) present(name string) bool {
	v, ok := f.raw[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str reads a string field. A required field must be present; its value
// may be empty unless nonEmpty.
func (f *fields) str(name string, required, nonEmpty bool) (string, error) {
	f.known[name] = true
	if !f.present(name) {
		if required {
			return "", fmt.Errorf("%s input: field %q is missing", f.tool, f.prefix+name)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(f.raw[name], &s); err != nil {
		return "", fmt.Errorf("%s input: field %q must be a string", f.tool, f.prefix+name)
	}
	if nonEmpty && s == "" {
		return "", fmt.Errorf("%s input: field %q is empty", f.tool, f.prefix+name)
	}
	return s, nil
}

// num reads an optional integral number field (0 when absent).
func (f *fields) num(name string) (int64, error) {
	f.known[name] = true
	if !f.present(name) {
		return 0, nil
	}
	var n action.Int
	if err := n.UnmarshalJSON(f.raw[name]); err != nil {
		return 0, fmt.Errorf("%s input: field %q: %v", f.tool, f.prefix+name, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("%s input: field %q must not be negative", f.tool, f.prefix+name)
	}
	return int64(n), nil
}

// objects reads a required array of objects.
func (f *fields) objects(name string) ([]json.RawMessage, error) {
	f.known[name] = true
	var list []json.RawMessage
	if !f.present(name) {
		return nil, fmt.Errorf("%s input: field %q is missing", f.tool, f.prefix+name)
	}
	if err := json.Unmarshal(f.raw[name], &list); err != nil || len(list) == 0 {
		return nil, fmt.Errorf("%s input: field %q must be a non-empty array", f.tool, f.prefix+name)
	}
	return list, nil
}

// drop marks fields as known and deliberately not mapped. Each caller
// says why dropping them cannot widen what the tool does.
func (f *fields) drop(names ...string) {
	for _, n := range names {
		f.known[n] = true
	}
}

// unknown lists the fields nobody read or dropped, sorted, with the
// prefix.
func (f *fields) unknown() []string {
	var out []string
	for k := range f.raw {
		if !f.known[k] {
			out = append(out, f.prefix+k)
		}
	}
	sort.Strings(out)
	return out
}
