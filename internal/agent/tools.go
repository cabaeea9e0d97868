package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/llm/chat"
)

// LoadToolsName is the meta-tool the model calls to add a group of tools.
const LoadToolsName = "load_tools"

// CoreGroup is the group the model starts with.
const CoreGroup = "core"

// toolSpec is one tool the model can be given: the catalog's action type
// is its name, so what the model calls is what the gate judges.
type toolSpec struct {
	typ         action.Type
	description string
	schema      string
}

// group is a named set of tools loaded together.
type group struct {
	name        string
	description string
	tools       []toolSpec
}

// groups is the static, ordered table of tool groups. Names are action
// types; schemas follow the payloads in package action.
func groups() []group {
	return []group{
		{CoreGroup, "read, write and edit files, list and search them, run shell commands", []toolSpec{
			{action.ReadFile, "Read a text file. offset and limit select lines (1-based offset).",
				`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0}},"required":["path"]}`},
			{action.WriteFile, "Write a whole file (created if missing); append=true adds to its end.",
				`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"append":{"type":"boolean"}},"required":["path","content"]}`},
			{action.EditFile, "Replace the one exact occurrence of old with new in a file; fails when old occurs zero or several times.",
				`{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path","old","new"]}`},
			{action.ListDirectory, "List a directory, recursively when asked.",
				`{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}`},
			{action.SearchFiles, "Search under path: pattern is a regular expression over contents, or a glob over names when it starts with glob:.",
				`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"}},"required":["path","pattern"]}`},
			{action.ExecuteCommand, "Run a shell command in the workspace (its own sandbox; 30 s default timeout).",
				`{"type":"object","properties":{"command":{"type":"string"},"timeout_seconds":{"type":"integer","minimum":1}},"required":["command"]}`},
		}},
		{"files", "delete, move and copy files, create directories", []toolSpec{
			{action.DeleteFile, "Delete a file, or a directory with recursive=true.",
				`{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}`},
			{action.MoveFile, "Move or rename a file or directory.",
				`{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}`},
			{action.CopyFile, "Copy a file.",
				`{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}`},
			{action.CreateDirectory, "Create a directory and its parents.",
				`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`},
		}},
	}
}

// Groups returns the names of the tool groups, in table order.
func Groups() []string {
	var out []string
	for _, g := range groups() {
		out = append(out, g.name)
	}
	return out
}

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
	for _, g := range groups() {
		if !slices.Contains(t.loaded, g.name) {
			continue
		}
		for _, s := range g.tools {
			if string(s.typ) == name {
				return true
			}
		}
	}
	return false
}

// GroupOf returns the group that holds the tool name, if any.
func GroupOf(name string) (string, bool) {
	for _, g := range groups() {
		for _, s := range g.tools {
			if string(s.typ) == name {
				return g.name, true
			}
		}
	}
	return "", false
}

// Tools returns the tool definitions for the model: the loaded groups'
// tools and load_tools, which lists the groups not loaded yet.
func (t *Toolset) Tools() []chat.Tool {
	var out []chat.Tool
	var others []string
	for _, g := range groups() {
		if !slices.Contains(t.loaded, g.name) {
			others = append(others, g.name+" ("+g.description+")")
			continue
		}
		for _, s := range g.tools {
			out = append(out, chat.Tool{Name: string(s.typ), Description: s.description, InputSchema: json.RawMessage(s.schema)})
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
