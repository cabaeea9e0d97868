package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

const writeOrDelete = action.AccessWrite | action.AccessDelete

// matchPersistence fires on the analyser's persistence fact and on
// writes to places whose content runs again later.
func matchPersistence(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagPersistence); ok {
		return tagDetail(t), true
	}
	if u, ok := findPath(in, func(u use) bool {
		return u.access&action.AccessWrite != 0 && persistencePaths.has(u.path, u.glob, in.Home)
	}); ok {
		return "write to " + tilde(u.path, in.Home), true
	}
	return "", false
}

// matchSystemWrite fires on writes and deletes of system binaries,
// libraries and configuration. Package source lists are left to the
// package_source and write_outside_workspace rules.
func matchSystemWrite(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		return u.access&writeOrDelete != 0 && systemPaths.has(u.path, u.glob, in.Home) &&
			!packageSourceLists.has(u.path, u.glob, in.Home)
	}); ok {
		return u.access.String() + " of " + u.path, true
	}
	return "", false
}

// isFreeToWrite reports whether writing p is routine: inside the
// workspace, in a scratch directory, or a harmless device.
func isFreeToWrite(p, ws string) bool {
	return ws != "" && inside(p, ws) || isScratch(p) || isHarmlessDevice(p)
}

// matchWriteOutside fires on writes outside the workspace and the
// scratch directories.
func matchWriteOutside(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		return u.access&action.AccessWrite != 0 && !isFreeToWrite(u.path, in.Workspace) &&
			!intoScratchDir(u)
	}); ok {
		return "write to " + tilde(u.path, in.Home), true
	}
	return "", false
}

// intoScratchDir reports a scratch directory named as the destination
// directory of a program that puts files into it (cp a.txt /tmp/, mv x
// /var/tmp): what it writes are named entries inside the directory, which
// are free to write like any other file there. Programs that change the
// directory itself (chmod, chown, touch) do not qualify.
func intoScratchDir(u use) bool {
	switch u.prog {
	case "cp", "mv", "ln", "install", "rsync":
	default:
		return false
	}
	for _, d := range scratchDirs {
		if u.path == d {
			return true
		}
	}
	return false
}

// matchDeleteOutside fires on deletes outside the workspace. Deleting a
// named file or directory inside /tmp or /var/tmp is routine clean-up;
// deleting a scratch directory itself or everything in it ("/tmp/*") is
// not, since other programs keep their state there.
func matchDeleteOutside(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		if u.access&action.AccessDelete == 0 || in.Workspace != "" && inside(u.path, in.Workspace) {
			return false
		}
		if isScratch(u.path) {
			return u.glob && scratchWildcard(u.path)
		}
		return !isHarmlessDevice(u.path)
	}); ok {
		return "delete of " + tilde(u.path, in.Home), true
	}
	return "", false
}

// scratchWildcard reports "/tmp/*"-like globs: everything in a scratch dir.
func scratchWildcard(g string) bool {
	for _, d := range scratchDirs {
		if rel, ok := under(g, d); ok && strings.IndexByte(rel, '/') < 0 && strings.Trim(rel, "*?.") == "" {
			return true
		}
	}
	return false
}

// untrustedDirs hold downloads and drops, not installed software.
func isUntrustedLocation(p, home string) bool {
	if isScratch(p) {
		return true
	}
	rel, ok := homeRel(p, home)
	return ok && (strings.HasPrefix(rel, "Downloads/") || strings.HasPrefix(rel, "Desktop/") ||
		strings.HasPrefix(rel, ".cache/") || strings.HasPrefix(rel, ".local/share/Trash/"))
}

// matchUntrustedExec fires when a binary or a script runs from a scratch
// or download directory (/tmp, /dev/shm, ~/Downloads): nothing vouches for it.
func matchUntrustedExec(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if e.Path != "" {
			// The workspace is the project's own, even where it lies
			// under /tmp (runfiles judges what the agent wrote there).
			if p := resolveArg(e.Path, in.Workspace, in.Home); isUntrustedLocation(p, in.Home) && !inside(p, in.Workspace) {
				return "runs " + tilde(p, in.Home), true
			}
		}
		if !isInterpreter(e.Name) || e.Name == "env" || e.Name == "find" {
			continue
		}
		if s := scriptArg(e.Args); s != "" {
			if p := resolveArg(s, in.Workspace, in.Home); isUntrustedLocation(p, in.Home) && !inside(p, in.Workspace) {
				return e.Name + " runs " + tilde(p, in.Home), true
			}
		}
	}
	return "", false
}

// scriptArg returns an interpreter's script operand: the first argument
// that is not an option (and not after -c/-e, which take code).
func scriptArg(args []string) string {
	for _, a := range args {
		if oneOf(a, "-c", "-e", "-E", "-m", "--eval", "-p", "-r") {
			return ""
		}
		if !isFlag(a) {
			return a
		}
	}
	return ""
}

// matchUnknownProgram fires on programs the knowledge base does not know,
// unless they live inside the workspace (the project's own scripts and
// tool chain: ./build.sh, ./bin/app, node_modules/.bin/x).
func matchUnknownProgram(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, t := range fx.Tags {
		if t.Kind != shell.TagUnknownProgram {
			continue
		}
		if strings.HasPrefix(t.Detail, "/") && in.Workspace != "" && inside(t.Detail, in.Workspace) &&
			!isParallaxPath(t.Detail, false, in.Workspace, in.Home) {
			continue // a script of the project run by an interpreter: python3 manage.py
		}
		if workspaceProgram(in, fx, t.Program) {
			continue
		}
		return tagDetail(t), true
	}
	return "", false
}

// workspaceProgram reports whether every run of the named program is of a
// file inside the workspace (outside .parallax).
func workspaceProgram(in *Input, fx *shell.Effects, name string) bool {
	found := false
	for _, e := range fx.Execs {
		if e.Name != name && baseName(e.Path) != name {
			continue
		}
		if e.Path == "" {
			return false
		}
		p := resolveArg(e.Path, in.Workspace, in.Home)
		if in.Workspace == "" || !inside(p, in.Workspace) || isParallaxPath(p, false, in.Workspace, in.Home) {
			return false
		}
		found = true
	}
	return found
}

// matchCodeEscape fires when an option makes a program run code
// (GTFOBins: tar --checkpoint-action, git -c core.pager, less !sh).
// Wrappers whose nested command is analysed in full are exempt.
func matchCodeEscape(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, t := range fx.Tags {
		if t.Kind != shell.TagCodeEscape || oneOf(t.Program, "find", "xargs", "parallel") {
			continue
		}
		if t.Program == "rsync" && onlyNested(fx, "ssh") {
			continue // rsync -e "ssh -p 2222": the remote shell is ssh, analysed as such
		}
		return tagDetail(t), true
	}
	return "", false
}

// onlyNested reports whether every nested (depth > 0) program is name.
func onlyNested(fx *shell.Effects, name string) bool {
	found := false
	for _, e := range fx.Execs {
		if e.Depth > 0 {
			if e.Name != name {
				return false
			}
			found = true
		}
	}
	return found
}
