package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/toolgroup"
	"github.com/parallax/parallax/llm/chat"
)

// LoadToolsName is the meta-tool the model calls to add a group of tools.
const LoadToolsName = "load_tools"

// CoreGroup is the group the model starts with.
const CoreGroup = toolgroup.Core

// Groups returns the names of the tool groups, in table order.
func Groups() []string { return toolgroup.Names() }

// Toolset is the set of groups a conversation has loaded.
type Toolset struct {
	loaded []string
}

// NewToolset starts with the core group.
func NewToolset() *Toolset { return &Toolset{loaded: []string{CoreGroup}} }

// Loaded returns the loaded group names, sorted.
func (t *Toolset) Loaded() []string {
	out := slices.Clone(t.loaded)
	sort.Strings(out)
	return out
}

// Load adds groups by name. An unknown name is an error naming it and
// the known ones; nothing is loaded then.
func (t *Toolset) Load(names []string) error {
	known := Groups()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return fmt.Errorf("unknown tool group %q (groups: %s)", n, strings.Join(known, ", "))
		}
	}
	for _, n := range names {
		if !slices.Contains(t.loaded, n) {
			t.loaded = append(t.loaded, n)
		}
	}
	return nil
}

// Allowed reports whether name is a tool of a loaded group.
func (t *Toolset) Allowed(name string) bool {
	g, ok := GroupOf(name)
	return ok && slices.Contains(t.loaded, g)
}

// GroupOf returns the group that holds the tool name, if any.
func GroupOf(name string) (string, bool) { return toolgroup.GroupOf(action.Type(name)) }

// Tools returns the tool definitions for the model: the loaded groups'
// tools and load_tools, which lists the groups not loaded yet.
func (t *Toolset) Tools() []chat.Tool {
	var out []chat.Tool
	var others []string
	for _, g := range toolgroup.Groups() {
		if !slices.Contains(t.loaded, g.Name) {
			others = append(others, g.Name+" ("+g.Description+")")
			continue
		}
		for _, s := range g.Tools {
			out = append(out, chat.Tool{Name: string(s.Type), Description: s.Description, InputSchema: json.RawMessage(s.Schema)})
		}
	}
	desc := "Load more tools by group name."
	if len(others) > 0 {
		desc += " Groups not loaded: " + strings.Join(others, "; ") + "."
	} else {
		desc += " Every group is loaded."
	}
	out = append(out, chat.Tool{Name: LoadToolsName, Description: desc, InputSchema: json.RawMessage(
		`{"type":"object","properties":{"groups":{"type":"array","items":{"type":"string"}}},"required":["groups"]}`)})
	return out
}

// loadToolsInput is the input of load_tools.
type loadToolsInput struct {
	Groups []string `json:"groups"`
}

// runLoadTools answers a load_tools call.
func (t *Toolset) runLoadTools(input json.RawMessage) (string, bool) {
	var in loadToolsInput
	dec := json.NewDecoder(strings.NewReader(string(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return "load_tools: bad input: " + err.Error(), true
	}
	if len(in.Groups) == 0 {
		return "load_tools: name at least one group (groups: " + strings.Join(Groups(), ", ") + ")", true
	}
	if err := t.Load(in.Groups); err != nil {
		return "load_tools: " + err.Error(), true
	}
	return "loaded: " + strings.Join(t.Loaded(), ", "), false
}
