package mcpproxy

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolFacts is what a tool's (pinned) definition says about it: its MCP
// annotations and whether its input schema takes paths or URLs.
//
// Annotations are hints a server gives about its own tools. The proxy
// believes them for one decision only: a tool annotated readOnlyHint
// true and openWorldHint false (explicitly: the specification's default
// is true, and a missing hint is not a promise) cannot send the
// arguments anywhere or change anything, so a call that names no path
// or URL is allowed, and taint does not stop it (the server is a local
// process the user installed; if it lied about its tools it could do
// anything without being called). The definition is pinned, so the
// hints cannot change without the tool being held. A name that says the
// tool changes or sends something (send_message, delete_all) outweighs
// the hints. Everything else that fits no shape escalates, saying what
// is unknown.
type toolFacts struct {
	annotated   bool
	readOnly    bool
	openWorld   *bool
	destructive *bool
	schemaPaths bool // the input schema has a path- or URL-named property, or a uri format
	// mutatingName: the tool's name says it changes or sends something
	// (mutatingVerbs), whatever its annotations say.
	mutatingName bool
}

func factsOf(t *mcp.Tool) toolFacts {
	if t == nil {
		return toolFacts{schemaPaths: true}
	}
	f := toolFacts{schemaPaths: schemaTakesPaths(t.InputSchema)}
	words := nameWords(t.Name)
	for _, w := range mutatingVerbs {
		f.mutatingName = f.mutatingName || words[w]
	}
	if a := t.Annotations; a != nil {
		f.annotated, f.readOnly, f.openWorld, f.destructive = true, a.ReadOnlyHint, a.OpenWorldHint, a.DestructiveHint
	}
	return f
}

// localReadOnly: annotated read-only and explicitly not open-world, and
// not named as a tool that changes or sends something (annotations that
// contradict the name are not believed, as mapping does not map such a
// tool to a read).
func (f toolFacts) localReadOnly() bool {
	return f.readOnly && f.openWorld != nil && !*f.openWorld && !f.mutatingName
}

// describe says what the annotations claim, for reasons.
func (f toolFacts) describe() string {
	if !f.annotated {
		return "it has no annotations"
	}
	var parts []string
	if f.readOnly {
		parts = append(parts, "annotated read-only")
	} else {
		parts = append(parts, "not annotated read-only")
	}
	switch {
	case f.openWorld == nil:
		parts = append(parts, "open-world unless it says otherwise")
	case *f.openWorld:
		parts = append(parts, "annotated open-world")
	default:
		parts = append(parts, "annotated local")
	}
	if f.destructive != nil && *f.destructive && !f.readOnly {
		parts = append(parts, "destructive")
	}
	if f.readOnly && f.mutatingName {
		parts = append(parts, "but its name says it changes or sends something")
	}
	if f.localReadOnly() {
		parts = append(parts, "but it takes a path or URL")
	}
	return strings.Join(parts, ", ")
}

// urlWords are property-name words that say a value is a location.
var urlWords = []string{"url", "urls", "uri", "uris", "href", "link", "endpoint", "host", "webhook"}

// schemaTakesPaths reports whether an input schema has a property whose
// name says path or URL, or whose format is uri, at any depth. A schema
// that does not decode counts as taking paths.
func schemaTakesPaths(schema any) bool {
	if schema == nil {
		return false
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return true
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return true
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > maxWalkDepth {
			return true // not seen through: counts as taking paths
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if walk(e, depth+1) {
					return true
				}
			}
		case map[string]any:
			if f, _ := x["format"].(string); f == "uri" || f == "uri-reference" || f == "iri" {
				return true
			}
			if props, ok := x["properties"].(map[string]any); ok {
				for k := range props {
					w := nameWords(k)
					for _, n := range append(append([]string(nil), pathWords...), urlWords...) {
						if w[n] {
							return true
						}
					}
				}
			}
			for _, e := range x {
				if walk(e, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(v, 0)
}

// hasURL reports whether any string in the arguments looks like a URL
// or a path.
func hasURL(args json.RawMessage) bool {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return true
	}
	var memo keyMemo
	return !eachString(v, func(key, s string) bool {
		return !strings.Contains(s, "://") && !memo.pathLike(key, s)
	})
}
