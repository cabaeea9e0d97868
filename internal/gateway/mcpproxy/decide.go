package mcpproxy

import (
	"fmt"
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
}

// pinEvent is a change worth telling the operator and the audit chain:
// pinned (first sight of the server), added, changed, poisoned, removed.
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
		case pinned || len(o.rules) > 0:
			reason := PendingChanged
			if !pinned {
				reason = PendingPoisoned
			}
			st.held, st.reason = true, heldReason(reason, server, name, o.rules)
			if prev, ok := sp.Pending[name]; !ok || prev.Hash != o.hash {
				sp.Pending[name] = PendingTool{Hash: o.hash, Reason: reason, Rules: o.rules, SeenAt: now,
					Description: trimTo(o.tool.Description, maxPinnedText)}
				events = append(events, pinEvent{kind: reason, tool: name, hash: o.hash, rules: o.rules})
			}
		default:
			sp.Tools[name] = ToolPin{Hash: o.hash, PinnedAt: now, Description: trimTo(o.tool.Description, maxPinnedText)}
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
		return fmt.Sprintf("tool %s has a description that reads as instructions to the agent (%s); %s",
			tool, strings.Join(rules, ", "), approve)
	}
	if len(rules) > 0 {
		return fmt.Sprintf("tool %s changed since pinned, and its new description reads as instructions to the agent (%s); %s",
			tool, strings.Join(rules, ", "), approve)
	}
	return fmt.Sprintf("tool %s changed since pinned; %s", tool, approve)
}

// toolInjection scans a tool definition for text aimed at the agent: the
// title, the description and every string under the input schema (tool
// poisoning hides orders in parameter descriptions too).
func toolInjection(t *mcp.Tool) []string {
	var b strings.Builder
	b.WriteString(t.Title)
	b.WriteString("\n")
	b.WriteString(t.Description)
	whole := eachString(t.InputSchema, func(_, s string) bool {
		b.WriteString("\n")
		b.WriteString(s)
		return true
	})
	found := ScanInjection(b.String(), ScopeDescription)
	if !whole {
		// Nested past the walk's bound: what is below was not read, so it
		// is held as if it said something.
		found = append(found, "schema_nested_too_deeply")
	}
	return found
}
