package toolgroup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parallax/parallax/action"
)

// Core is the group the model starts with.
const Core = "core"

// ExecutorKind names the executor that runs a tool (internal/tools/<kind>).
type ExecutorKind string

// The executor kinds.
const (
	FilesExecutor ExecutorKind = "files" // internal/tools/files: the file actions
	ShellExecutor ExecutorKind = "shell" // internal/tools/shell: shell commands
)

// Snapshot says what Chronicle snapshots before a call runs. A table tool
// has exactly one kind; SnapshotOf may combine them for a type outside
// the table.
type Snapshot uint8

// SnapshotNone: the tool changes nothing.
const SnapshotNone Snapshot = 0

// The snapshot kinds.
const (
	SnapshotPaths Snapshot = 1 << iota // the payload's write and delete path fields
	SnapshotShell                      // the writes and deletes of the shell code's analysed effects
	SnapshotTree                       // the whole workspace: it changes files it does not name
)

// Tool is one tool the model can be given. Its name is the catalog's
// action type, so what the model calls is what the gate judges.
type Tool struct {
	Type        action.Type
	Description string
	// Schema is the JSON Schema (an object) of the tool's input: the
	// action's payload.
	Schema   string
	Executor ExecutorKind
	// ReadOnly tools are the only ones an off-the-record session may run.
	ReadOnly bool
	Snapshot Snapshot
}

// Group is a named set of tools the model loads together.
type Group struct {
	Name        string
	Description string
	Tools       []Tool
}

// table is the static, ordered table of tool groups, core first. Schemas
// follow the payloads in package action.
var table = []Group{
	{Core, "read, write and edit files, list and search them, run shell commands", []Tool{
		{action.ReadFile, "Read a text file. offset and limit select lines (1-based offset).",
			`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0}},"required":["path"]}`,
			FilesExecutor, true, SnapshotNone},
		{action.WriteFile, "Write a whole file (created if missing); append=true adds to its end.",
			`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"append":{"type":"boolean"}},"required":["path","content"]}`,
			FilesExecutor, false, SnapshotPaths},
		{action.EditFile, "Replace the one exact occurrence of old with new in a file; fails when old occurs zero or several times.",
			`{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path","old","new"]}`,
			FilesExecutor, false, SnapshotPaths},
		{action.ListDirectory, "List a directory, recursively when asked.",
			`{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}`,
			FilesExecutor, true, SnapshotNone},
		{action.SearchFiles, "Search under path: pattern is a regular expression over file contents and, when it is also a valid glob, a glob over names; glob:PATTERN matches names only.",
			`{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"}},"required":["path","pattern"]}`,
			FilesExecutor, true, SnapshotNone},
		{action.ExecuteCommand, "Run a shell command in the workspace (its own sandbox; 30 s default timeout).",
			`{"type":"object","properties":{"command":{"type":"string"},"timeout_seconds":{"type":"integer","minimum":1}},"required":["command"]}`,
			ShellExecutor, false, SnapshotShell},
	}},
	{"files", "delete, move and copy files, create directories", []Tool{
		{action.DeleteFile, "Delete a file, or a directory with recursive=true.",
			`{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}`,
			FilesExecutor, false, SnapshotPaths},
		{action.MoveFile, "Move or rename a file or directory.",
			`{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}`,
			FilesExecutor, false, SnapshotPaths},
		{action.CopyFile, "Copy a file.",
			`{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}`,
			FilesExecutor, false, SnapshotPaths},
		{action.CreateDirectory, "Create a directory and its parents.",
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
			FilesExecutor, false, SnapshotPaths},
	}},
}

// entry is a tool and the group that holds it.
type entry struct {
	tool  Tool
	group string
}

// byType indexes the table by action type.
var byType = func() map[action.Type]entry {
	out := map[action.Type]entry{}
	for _, g := range table {
		for _, t := range g.Tools {
			out[t.Type] = entry{t, g.Name}
		}
	}
	return out
}()

// Groups returns the table, in order. The result is a copy: changing it
// changes nothing here.
func Groups() []Group {
	out := make([]Group, len(table))
	for i, g := range table {
		out[i] = Group{g.Name, g.Description, slices.Clone(g.Tools)}
	}
	return out
}

// Names returns the group names, in table order.
func Names() []string {
	out := make([]string, len(table))
	for i, g := range table {
		out[i] = g.Name
	}
	return out
}

// Lookup returns the tool of type t.
func Lookup(t action.Type) (Tool, bool) {
	e, ok := byType[t]
	return e.tool, ok
}

// GroupOf returns the name of the group that holds the tool of type t.
func GroupOf(t action.Type) (string, bool) {
	e, ok := byType[t]
	return e.group, ok
}

// Executors returns, for every tool of the table, the kind of executor
// that runs it: the engine's executor map covers these types, no others.
func Executors() map[action.Type]ExecutorKind {
	out := make(map[action.Type]ExecutorKind, len(byType))
	for t, e := range byType {
		out[t] = e.tool.Executor
	}
	return out
}

// ReadOnly reports whether an off-the-record session may run t: only a
// read-only tool of the table; any other type is refused.
func ReadOnly(t action.Type) bool {
	e, ok := byType[t]
	return ok && e.tool.ReadOnly
}

// ReadOnlyTypes lists the read-only tools, in table order.
func ReadOnlyTypes() []action.Type {
	var out []action.Type
	for _, g := range table {
		for _, t := range g.Tools {
			if t.ReadOnly {
				out = append(out, t.Type)
			}
		}
	}
	return out
}

// SnapshotOf returns what Chronicle snapshots before a call of type t: a
// table tool's own kind. A type outside the table (an executor plugged
// into the engine by hand) is snapshotted conservatively: every path it
// writes or deletes, the effects of any shell code it carries, and, when
// the catalog says it writes files, the whole workspace, since its
// payload need not name what it changes (git_pull and git_checkout
// rewrite the working tree).
func SnapshotOf(t action.Type) Snapshot {
	if e, ok := byType[t]; ok {
		return e.tool.Snapshot
	}
	s := SnapshotPaths | SnapshotShell
	if action.SinkOf(t) == action.SinkFileWrite {
		s |= SnapshotTree
	}
	return s
}

// String names the kinds of s joined by "|" ("none" for none).
func (s Snapshot) String() string {
	if s == SnapshotNone {
		return "none"
	}
	var out []string
	for _, k := range []struct {
		bit  Snapshot
		name string
	}{{SnapshotPaths, "paths"}, {SnapshotShell, "shell"}, {SnapshotTree, "tree"}} {
		if s&k.bit != 0 {
			out = append(out, k.name)
			s &^= k.bit
		}
	}
	if s != 0 {
		out = append(out, fmt.Sprintf("0x%x", uint8(s)))
	}
	return strings.Join(out, "|")
}
