package runfile

import (
	"path"
	"strings"
)

// FS is what Runs may ask of the file system.
type FS interface {
	// Exists reports whether a file exists at p.
	Exists(p string) bool
	// Read returns a small file's content (a git config); false when it
	// is absent or unreadable.
	Read(p string) (string, bool)
	// List returns the names of a directory's regular files and of its
	// subdirectories; false when it cannot be listed whole.
	List(dir string) (files, dirs []string, ok bool)
}

// Runs returns the project files one program run will run, and which
// of their parts. name is the program's base name, execPath its path
// when it was run by one (./x.sh), args its resolved arguments ("" for
// one the analysis could not resolve), cwd the directory it runs in.
func Runs(name, execPath string, args []string, cwd string, fs FS) []Target {
	if execPath != "" {
		p := abs(cwd, execPath)
		var out []Target
		if fs.Exists(p) {
			out = []Target{{File: p, Kind: KindScript, Dir: cwd}}
		}
		return append(out, wrapperRuns(path.Base(p), args, cwd, fs)...)
	}
	switch name = strings.TrimSuffix(name, ".exe"); name {
	case "make", "gmake":
		return makeRuns(args, cwd, fs)
	case "npm", "yarn", "pnpm":
		return packageRuns(name, args, cwd)
	case "pytest", "py.test":
		return pytestRuns(args, cwd, fs)
	case "pip", "pip3":
		return pipRuns(args, cwd, fs)
	case "git":
		return gitRuns(args, cwd, fs)
	case "go":
		if len(args) > 0 && args[0] == "generate" {
			return generateRuns(args[1:], cwd, fs)
		}
		return nil
	case "just":
		return justRuns(args, cwd, fs)
	case "tox":
		return toxRuns(args, cwd, fs)
	case "cargo":
		return cargoRuns(args, cwd, fs)
	case "gradle":
		return gradleRuns(args, cwd, fs)
	case "cmake":
		return cmakeRuns(args, cwd, fs)
	case "mvn":
		return mavenRuns(args, cwd, fs)
	case "pyproject-build":
		return buildModuleRuns(args, cwd, fs)
	case "uv":
		return uvRuns(args, cwd, fs)
	case "source", ".":
		if len(args) > 0 && args[0] != "" {
			return scriptRun(abs(cwd, args[0]), "sh", cwd, fs)
		}
	case "sed", "gsed":
		return programScriptRuns(args, "sed", cwd, fs)
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		return programScriptRuns(args, "awk", cwd, fs)
	}
	if lang := interpLang(name); lang != "" {
		return interpRuns(lang, args, cwd, fs)
	}
	return nil
}

func abs(cwd, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(cwd, p)
}

func scriptRun(p, lang, cwd string, fs FS) []Target {
	if !fs.Exists(p) {
		return nil
	}
	return []Target{{File: p, Kind: KindScript, Lang: lang, Dir: cwd}}
}

// interpRuns: bash x.sh, python x.py (python -m pip install ., python -m
// pytest), node x.js ... The first operand is the script, unless code
// comes from -c/-e.
func interpRuns(lang string, args []string, cwd string, fs FS) []Target {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && lang == "python" && i+1 < len(args):
			switch args[i+1] {
			case "pip":
				return pipRuns(args[i+2:], cwd, fs)
			case "pytest":
				return pytestRuns(args[i+2:], cwd, fs)
			case "build":
				return buildModuleRuns(args[i+2:], cwd, fs)
			}
			return nil
		case a == "-c" || a == "-e" || a == "-E" || a == "--eval" || a == "-p" || a == "-r" || a == "-m" || a == "--":
			return nil
		case strings.HasPrefix(a, "-"):
			continue
		case a == "":
			return nil
		}
		return scriptRun(abs(cwd, a), lang, cwd, fs)
	}
	return nil
}

// programScriptRuns: the script files a sed or awk reads its program
// from (-f FILE, -fFILE, --file FILE, --file=FILE): GNU sed's e and w
// commands and awk's system() and output redirections run and write as a
// shell script does.
func programScriptRuns(args []string, lang, cwd string, fs FS) []Target {
	var out []Target
	for i := 0; i < len(args); i++ {
		a, file := args[i], ""
		switch {
		case a == "--":
			return out
		case (a == "-f" || a == "--file") && i+1 < len(args):
			file = args[i+1]
			i++
		case strings.HasPrefix(a, "--file="):
			file = a[len("--file="):]
		case strings.HasPrefix(a, "-f") && len(a) > 2 && lang == "awk":
			file = a[2:]
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, "f") && lang == "sed" && i+1 < len(args):
			file = args[i+1] // sed -nf FILE
			i++
		}
		if file == "" || file == "-" {
			continue
		}
		out = append(out, scriptRun(abs(cwd, file), lang, cwd, fs)...)
	}
	return out
}

// makeRuns: make [-C DIR] [-f FILE] [VAR=VAL] [TARGET...].
func makeRuns(args []string, cwd string, fs FS) []Target {
	dir, file := cwd, ""
	var goals []string
	vars := map[string]string{}
	unknownGoal := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func(short, long string) (string, bool) {
			switch {
			case a == short || a == long:
				if i+1 < len(args) {
					i++
					return args[i], true
				}
			case strings.HasPrefix(a, long+"="):
				return a[len(long)+1:], true
			case len(short) == 2 && strings.HasPrefix(a, short) && len(a) > 2:
				return a[2:], true
			}
			return "", false
		}
		if v, ok := val("-C", "--directory"); ok {
			dir = abs(dir, v)
			continue
		}
		if v, ok := val("-f", "--file"); ok {
			file = v
			continue
		}
		if _, ok := val("-I", "--include-dir"); ok {
			continue
		}
		if v, ok := val("-j", "--jobs"); ok && !strings.HasPrefix(v, "-") {
			if strings.Trim(v, "0123456789") != "" { // -j then a target
				goals = append(goals, v)
			}
			continue
		}
		switch {
		case strings.HasPrefix(a, "-"):
		case a == "":
			unknownGoal = true
		case strings.Contains(a, "="):
			k, v, _ := strings.Cut(a, "=")
			vars[k] = v
		default:
			goals = append(goals, a)
		}
	}
	var mf string
	if file != "" {
		mf = abs(dir, file)
	} else {
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if p := path.Join(dir, n); fs.Exists(p) {
				mf = p
				break
			}
		}
	}
	if mf == "" {
		return nil
	}
	t := Target{File: mf, Kind: KindMakefile, Select: goals, Vars: vars, Dir: dir}
	if unknownGoal {
		t.Select, t.All = nil, true
	}
	return []Target{t}
}

// MayRun reports whether a command's words (split on blanks) start a
// program that may run project files: a fast path must leave such a
// command to the full analysis.
func MayRun(fields []string) bool {
	if len(fields) == 0 {
		return false
	}
	for _, f := range fields {
		if HasDirective(f) {
			return true // a //go:generate line written for later
		}
	}
	name := path.Base(fields[0])
	switch name {
	case "make", "gmake", "npm", "yarn", "pnpm", "pytest", "py.test", "pip", "pip3", "source", ".",
		"just", "tox", "gradle", "cmake", "mvn", "pyproject-build", "uv":
		return true
	case "cargo":
		for _, a := range fields[1:] {
			if cargoSubs[a] || a == "install" {
				return true
			}
		}
		return false
	case "sed", "gsed", "awk", "gawk", "mawk", "nawk":
		for _, a := range fields[1:] {
			if a == "-f" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-f") && name != "sed" && name != "gsed" ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, "f") {
				return true
			}
		}
		return false
	case "git":
		for _, a := range fields[1:] {
			if !strings.HasPrefix(a, "-") {
				return gitHooks[a] != nil
			}
		}
		return false
	case "go":
		return len(fields) > 1 && fields[1] == "generate"
	}
	if strings.Contains(fields[0], "/") {
		return true
	}
	if interpLang(name) == "" {
		return false
	}
	for _, a := range fields[1:] {
		if !strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}
