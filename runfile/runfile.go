package runfile

import (
	"path"
	"strings"
)

// Bounds.
const (
	// MaxFileBytes is the largest file read; a larger one is unknown.
	MaxFileBytes = 256 << 10
	// MaxUnits bounds the units one command or one file yields.
	MaxUnits = 256
)

// Kind is what sort of runnable file a path is.
type Kind uint8

// Kinds of runnable files.
const (
	KindNone     Kind = iota
	KindMakefile      // Makefile, GNUmakefile, makefile, *.mk
	KindPackage       // package.json: its scripts
	KindScript        // a script run whole (*.sh, a git hook, setup.py, conftest.py)
	KindGo            // a Go source file: its //go:generate lines
	KindJust          // justfile, Justfile, .justfile: its recipes
	KindTox           // tox.ini: its testenv commands
	KindOpaque        // build.rs, Gradle, CMake, pom.xml, pyproject.toml: code the analyser cannot read
)

// Unit is one piece of code a file runs.
type Unit struct {
	File string // absolute path of the file it comes from
	Part string // "target test", "script pretest", "" for the whole file
	Lang string // "sh", "python", "node", "ruby", "perl", "php"
	Code string
	Dir  string // the directory it runs in
}

// Name names the unit in a reason: "Makefile target test".
func (u Unit) Name() string {
	if u.Part == "" {
		return u.File
	}
	return u.File + " " + u.Part
}

// Target is a file a command will run, and which of its parts.
type Target struct {
	File   string
	Kind   Kind
	Select []string // make targets or package scripts; nil: the default (make) or nothing
	All    bool     // every part may run (a target or script name the analysis could not resolve)
	Vars   map[string]string
	Dir    string
	Lang   string // for KindScript: the interpreter's language when the command names it
	// Unknown, when set, says what the command runs that could not be
	// looked at (File is then the directory it runs in).
	Unknown string
}

// KindOf says whether a file, by its path, is one whose content runs
// later when a build, test, package or git command runs (and so is
// judged by its content when written).
func KindOf(p string) Kind {
	base := path.Base(p)
	switch {
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		return KindMakefile
	case base == "package.json":
		return KindPackage
	case base == "setup.py" || base == "conftest.py" || base == "noxfile.py" ||
		strings.HasSuffix(base, ".sh") || strings.HasSuffix(base, ".bash") ||
		strings.HasSuffix(base, ".sed") || strings.HasSuffix(base, ".awk"):
		return KindScript
	case inHookDir(p):
		return KindScript
	case strings.HasSuffix(base, ".go"):
		return KindGo
	case isJustfile(base):
		return KindJust
	case base == "tox.ini":
		return KindTox
	case opaqueBase(base):
		return KindOpaque
	}
	return KindNone
}

// inHookDir reports whether p is a git hook (.git/hooks/NAME) or a husky
// hook (.husky/NAME, .husky/_/NAME).
func inHookDir(p string) bool {
	dir := path.Dir(p)
	return strings.HasSuffix(dir, "/.git/hooks") || strings.HasSuffix(dir, "/.husky") ||
		strings.HasSuffix(dir, "/.husky/_")
}

// FileUnits returns every unit a file holds, whichever part a later
// command runs: all targets of a makefile, all scripts of a package.json,
// a script whole. It is what a write of the file is judged by.
func FileUnits(file, content string) (units []Unit, unknown string) {
	dir := path.Dir(file)
	switch KindOf(file) {
	case KindMakefile:
		return makeUnits(file, dir, content, nil, nil, true)
	case KindPackage:
		return packageUnits(file, dir, content, nil)
	case KindScript:
		return scriptUnits(file, dir, content, "")
	case KindGo:
		return goUnits(file, dir, content)
	case KindJust:
		return justUnits(file, dir, content, nil, true)
	case KindTox:
		return toxUnits(file, dir, content)
	case KindOpaque:
		return opaqueFileUnits(file, dir, content)
	}
	return nil, ""
}

// Units returns the units a command runs of a target file whose content
// is given.
func Units(t Target, content string) (units []Unit, unknown string) {
	if len(content) > MaxFileBytes {
		return nil, t.File + " is larger than " + itoa(MaxFileBytes>>10) + " KiB"
	}
	switch t.Kind {
	case KindMakefile:
		return makeUnits(t.File, t.Dir, content, t.Select, t.Vars, t.All)
	case KindPackage:
		sel := t.Select
		if t.All {
			sel = nil
		} else if sel == nil {
			sel = []string{}
		}
		return packageUnits(t.File, t.Dir, content, sel)
	case KindScript:
		return scriptUnits(t.File, t.Dir, content, t.Lang)
	case KindGo:
		return goUnits(t.File, t.Dir, content)
	case KindJust:
		return justUnits(t.File, t.Dir, content, t.Select, t.All)
	case KindTox:
		return toxUnits(t.File, t.Dir, content)
	case KindOpaque:
		return nil, opaqueWhat(t.File) + ", which the analyser cannot read"
	}
	return nil, ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
