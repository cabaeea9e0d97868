package heuristic

import (
	"slices"
	"strings"

	"github.com/parallax/parallax/shell"
)

// This file adds to a dynamic_command escalation what the agent can
// write instead, so that a path the analyser could not resolve is not a
// dead end: the variables the command builds paths from, and where a
// command may put a file the gate knows (its private $TMPDIR, the
// workspace).

// Bounds of a hint.
const (
	maxHintVars    = 3
	maxHintVarName = 32
)

// pathHint is the advice for an opaque-path tag of the command cmd, ""
// for another tag. tmp names the private temp directory the gate knows.
func pathHint(t shell.Tag, cmd, tmp string) string {
	switch {
	case t.Kind != shell.TagOpaque:
		return ""
	case t.Detail == "unresolved path" || strings.HasPrefix(t.Detail, "path partly unresolved"):
		where := "/tmp/NAME"
		if tmp != "" {
			where = "$TMPDIR/NAME"
		}
		return hintVars(cmd) + ": name the file, or use " + where + " or a path in the workspace"
	case t.Detail == "relative path in unknown directory":
		return hintVars(cmd) + ": cd to a directory the command names, or give the path in full"
	}
	return ""
}

// hintVars names the first variables the command expands (names only,
// never values): " in $f, $d".
func hintVars(cmd string) string {
	var names []string
	for i := 0; i < len(cmd) && len(names) < maxHintVars; i++ {
		if cmd[i] != '$' {
			continue
		}
		j := i + 1
		if j < len(cmd) && cmd[j] == '{' {
			j++
		}
		k := j
		for k < len(cmd) && k-j < maxHintVarName && (cmd[k] == '_' || cmd[k] >= 'a' && cmd[k] <= 'z' ||
			cmd[k] >= 'A' && cmd[k] <= 'Z' || k > j && cmd[k] >= '0' && cmd[k] <= '9') {
			k++
		}
		if k == j {
			continue
		}
		n := "$" + cmd[j:k]
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
		i = k - 1
	}
	if len(names) == 0 {
		return ""
	}
	return " in " + strings.Join(names, ", ")
}
