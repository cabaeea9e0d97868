package heuristic

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// Action type groups the rules read.
var (
	shellTypes = []action.Type{action.ExecuteCommand, action.CreateSchedule}

	// pathTypes carry paths in their payload (typed PathFields).
	pathTypes = []action.Type{action.ReadFile, action.WriteFile, action.EditFile, action.DeleteFile,
		action.MoveFile, action.CopyFile, action.CreateDirectory, action.ListDirectory,
		action.SearchFiles, action.GitStatus, action.GitDiff, action.GitLog, action.GitCommit,
		action.GitClone, action.SendEmail, "reply_email", "open_file", "transcribe", "read_document",
		"download_file", "archive_extract", "archive_create", "generate_image", "generate_video"}

	// instructionTypes hand text to an agent as instructions.
	// Writes to the agent's own instruction files (AGENTS.md, MEMORY.md…)
	// are instructions too; instructionText picks those paths.
	instructionTypes = []action.Type{action.CreateAgent, action.AgentMessage, action.CreateSchedule,
		action.MemoryWrite, action.WriteFile, action.EditFile}
)

// join concatenates type groups into a fresh slice.
func join(groups ...[]action.Type) []action.Type {
	var out []action.Type
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// externalTypes are the types whose sink sends data off the machine.
var externalTypes = func() []action.Type {
	var out []action.Type
	for _, t := range action.Types() {
		if action.SinkOf(t).External() {
			out = append(out, t)
		}
	}
	return out
}()

// commandText returns the raw shell command of the input ("" if none).
func commandText(in *Input) string {
	switch p := in.Action.Payload.(type) {
	case *action.ExecuteCommandPayload:
		return p.Command
	case *action.CreateSchedulePayload:
		return p.Command
	}
	return ""
}

// use is one path an action touches, from either the payload or the
// shell analysis.
type use struct {
	path   string
	access action.Access
	glob   bool
	prog   string // shell program ("" for a redirect or a typed field)
}

// findPath calls fn for every path the action touches (typed path fields,
// then shell effects) and returns the first use it accepts.
func findPath(in *Input, fn func(u use) bool) (use, bool) {
	if fx := in.Effects; fx != nil {
		for i := range fx.Paths {
			p := &fx.Paths[i]
			u := use{path: p.Path, access: p.Access, glob: p.Glob, prog: p.Program}
			if fn(u) {
				return u, true
			}
		}
	}
	if _, isShell := in.Action.Payload.(*action.ExecuteCommandPayload); isShell {
		return use{}, false
	}
	for _, f := range in.Action.Payload.PathFields() {
		u := use{path: *f.Path, access: f.Access}
		if fn(u) {
			return u, true
		}
	}
	return use{}, false
}

// findTag returns the first tag of any of the kinds.
func findTag(in *Input, kinds ...shell.TagKind) (shell.Tag, bool) {
	fx := in.Effects
	if fx == nil {
		return shell.Tag{}, false
	}
	for _, t := range fx.Tags {
		for _, k := range kinds {
			if t.Kind == k {
				return t, true
			}
		}
	}
	return shell.Tag{}, false
}

// tagRule builds a matcher for a set of tag kinds. The detail names the
// tag kind, its program and the analyser's short detail.
func tagRule(kinds ...shell.TagKind) func(*Input) (string, bool) {
	return func(in *Input) (string, bool) {
		t, ok := findTag(in, kinds...)
		if !ok {
			return "", false
		}
		return tagDetail(t), true
	}
}

// tagDetail renders a tag as "kind by program: detail" (parts omitted
// when empty).
func tagDetail(t shell.Tag) string {
	d := t.Kind.String()
	if t.Program != "" {
		d += " by " + t.Program
	}
	if t.Detail != "" {
		d += ": " + t.Detail
	}
	return d
}

// resolveArg makes an exec argument absolute against the workspace (the
// cwd commands start in) with "~" expanded; "" when it is not a path.
func resolveArg(a, ws, home string) string {
	switch {
	case a == "":
		return ""
	case a == "~" || strings.HasPrefix(a, "~/"):
		if home == "" {
			return ""
		}
		return path.Clean(home + a[1:])
	case a[0] == '/':
		return path.Clean(a)
	case ws != "":
		return path.Join(ws, a)
	}
	return ""
}

// isFlag reports whether an argument is an option.
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }

// hasFlag reports whether args hold the long flag or a short flag
// cluster containing letter ("-R", "-Rf", "--recursive").
func hasFlag(args []string, letter byte, long string) bool {
	for _, a := range args {
		if a == long {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// in reports whether s is one of the list.
func oneOf(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// shells and interpreters: programs that run arbitrary code.
var interpreters = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"fish": true, "csh": true, "tcsh": true, "ash": true, "busybox": true, "python": true, "python2": true,
	"python3": true, "perl": true, "ruby": true, "node": true, "nodejs": true, "php": true, "lua": true,
	"tclsh": true, "wish": true, "pwsh": true, "powershell": true, "deno": true, "bun": true, "irb": true,
	"expect": true, "gawk": true, "awk": true, "env": true, "find": true, "vim": true, "vi": true}

// isInterpreter reports whether a program base name runs arbitrary code
// ("python3.12" counts as python3).
func isInterpreter(name string) bool {
	if interpreters[name] {
		return true
	}
	for _, p := range [...]string{"python", "perl", "ruby", "php", "node", "lua"} {
		if strings.HasPrefix(name, p) {
			rest := name[len(p):]
			if rest != "" && strings.Trim(rest, "0123456789.") == "" {
				return true
			}
		}
	}
	return false
}
