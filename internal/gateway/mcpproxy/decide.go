package mcpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observed is one tool as the server listed it.
type observed struct {
	tool  *mcp.Tool
	hash  string
	rules []string // injection rules its definition matches
	// v1 is its hash as pins had it before the output schema, _meta and
	// icons were pinned, and added the rules those alone match: a pin of
	// v1 is carried over when added is empty (decide).
	v1    string
	added []string
}

// newObserved hashes and scans a listed tool.
func newObserved(t *mcp.Tool) (observed, error) {
	h, err := ToolHash(t)
	if err != nil {
		return observed{}, err
	}
	v1, err := v1ToolHash(t)
	if err != nil {
		return observed{}, err
	}
	return observed{tool: t, hash: h, rules: toolInjection(t), v1: v1, added: scanDefinition(t.OutputSchema, t.Meta, t.Icons)}, nil
}

// pinEvent is a change worth telling the operator and the audit chain:
// pinned (first sight of the server), added, changed, poisoned, removed,
// repinned (a v1 pin carried over to the hash that covers the output
// schema, _meta and icons).
type pinEvent struct {
	kind  string
	tool  string
	hash  string
	rules []string
}

// decide checks the listed tools against a server's pins and updates
// them: a tool seen for the first time is pinned (trust on first use)
// unless its definition reads as orders to the agent; a pinned tool whose
// definition changed is held (the new definition waits in Pending); an
// approved pending definition is served. It returns what to serve and
// what to report.
func decide(sp *ServerPins, seen []observed, now time.Time, server string) (map[string]*toolState, []pinEvent) {
	known := len(sp.Tools) > 0
	states := make(map[string]*toolState, len(seen))
	var events []pinEvent
	listed := map[string]bool{}
	for _, o := range seen {
		name := o.tool.Name
		listed[name] = true
		pin, pinned := sp.Tools[name]
		st := &toolState{def: o.tool, hash: o.hash}
		states[name] = st
		switch {
		case pinned && pin.Hash == o.hash:
			delete(sp.Pending, name)
			if pin.HashVersion < HashVersion {
				// The hash covers all it now covers: the output schema,
				// _meta and icons are absent, and their arrival is a change.
				pin.HashVersion = HashVersion
				sp.Tools[name] = pin
			}
		case pinned && pin.HashVersion < HashVersion && pin.Hash == o.v1 && len(o.added) == 0:
			// Pinned before the output schema, _meta and icons were:
			// what was pinned is unchanged, and what is now pinned too is
			// seen for the first time (and reads as no orders). A trust
			// of that definition stays with it.
			pin.Hash, pin.HashVersion = o.hash, HashVersion
			sp.Tools[name] = pin
			if tr, ok := sp.Trusted[name]; ok && tr.Hash == o.v1 {
				tr.Hash = o.hash
				sp.Trusted[name] = tr
			}
			delete(sp.Pending, name)
			events = append(events, pinEvent{kind: "repinned", tool: name, hash: o.hash})
		case pinned || len(o.rules) > 0:
			reason := PendingChanged
			if !pinned {
				reason = PendingPoisoned
			}
			st.held, st.reason = true, heldReason(reason, server, name, o.rules)
			if prev, ok := sp.Pending[name]; !ok || prev.Hash != o.hash {
				sp.Pending[name] = PendingTool{Hash: o.hash, Reason: reason, Rules: o.rules, SeenAt: now,
					Description: trimTo(o.tool.Description, maxPinnedText), HashVersion: HashVersion}
				events = append(events, pinEvent{kind: reason, tool: name, hash: o.hash, rules: o.rules})
			}
		default:
			sp.Tools[name] = ToolPin{Hash: o.hash, PinnedAt: now, Description: trimTo(o.tool.Description, maxPinnedText),
				HashVersion: HashVersion}
			delete(sp.Pending, name)
			kind := "pinned"
			if known {
				kind = "added"
			}
			events = append(events, pinEvent{kind: kind, tool: name, hash: o.hash})
		}
	}
	var gone []string
	for name := range sp.Tools {
		if !listed[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		events = append(events, pinEvent{kind: "removed", tool: name, hash: sp.Tools[name].Hash})
	}
	return states, events
}

// heldReason is what a call to a held tool is told.
func heldReason(why, server, tool string, rules []string) string {
	approve := fmt.Sprintf("run `parallax mcp pins approve %s %s` after reviewing it", server, tool)
	if why == PendingPoisoned {
		orders := slices.DeleteFunc(slices.Clone(rules), func(r string) bool { return r == RuleToolShadowing })
		shadow := ""
		if len(orders) < len(rules) {
			shadow = "has the name of a tool another server of this workspace serves (" + RuleToolShadowing + ")"
		}
		switch {
		case len(orders) == 0:
			return fmt.Sprintf("tool %s %s; %s", tool, shadow, approve)
		case shadow != "":
			return fmt.Sprintf("tool %s has a description that reads as instructions to the agent (%s) and %s; %s",
				tool, strings.Join(orders, ", "), shadow, approve)
		}
		return fmt.Sprintf("tool %s has a description that reads as instructions to the agent (%s); %s",
			tool, strings.Join(rules, ", "), approve)
	}
	if len(rules) > 0 {
		return fmt.Sprintf("tool %s changed since pinned, and its new description reads as instructions to the agent (%s); %s",
			tool, strings.Join(rules, ", "), approve)
	}
	return fmt.Sprintf("tool %s changed since pinned; %s", tool, approve)
}

// toolInjection scans a tool definition for text aimed at the agent:
// everything the proxy serves of it that a client may show the model
// (tool poisoning hides orders in parameter descriptions, output
// schemas, _meta and annotation titles too): the title, the
// description, the annotations' title, and every key and string of the
// input and output schemas, _meta and icons.
func toolInjection(t *mcp.Tool) []string {
	var title string
	if t.Annotations != nil {
		title = t.Annotations.Title
	}
	return scanDefinition(t.Title, t.Description, title, t.InputSchema, t.OutputSchema, t.Meta, t.Icons)
}

// scanDefinition runs the injection rules (ScopeDescription) over parts
// of a definition: strings as they are, anything else as every key and
// string of its JSON. A part that cannot be read whole (nested past the
// walk's bound, or not JSON) is held as if it said something.
func scanDefinition(parts ...any) []string {
	var b strings.Builder
	add := func(s string) bool {
		b.WriteString(s)
		b.WriteString("\n")
		return true
	}
	whole := true
	for _, part := range parts {
		switch x := part.(type) {
		case nil:
		case string:
			add(x)
		default:
			v, err := decodedJSON(x)
			whole = err == nil && eachText(v, add) && whole
		}
	}
	found := ScanInjection(b.String(), ScopeDescription)
	if !whole {
		// What is below the bound was not read.
		found = append(found, "schema_nested_too_deeply")
	}
	return found
}

// decodedJSON is v as decoded JSON (maps, slices, strings, numbers).
func decodedJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}
