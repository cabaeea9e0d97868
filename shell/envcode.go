package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// Environment variables that make programs run code: an assignment to one
// of them (X=v cmd, export X=v) is analysed as the code it names.

// envKind says what an environment variable's value is to the programs
// that read it.
type envKind uint8

const (
	envShell   envKind = iota + 1 // a command line run by a shell (PAGER, GIT_SSH_COMMAND)
	envPreproc                    // less's input preprocessor: "|cmd %s" or "cmd %s"
	envLibrary                    // shared objects loaded into every process (LD_PRELOAD)
	envScript                     // a file a shell sources at start (BASH_ENV)
	envOptions                    // interpreter options that can load a file (NODE_OPTIONS)
	envDisplay                    // an X display: where windows, and their input, go
)

// codeEnvVars maps variable names to what their value is.
var codeEnvVars = map[string]envKind{
	"PAGER": envShell, "MANPAGER": envShell, "GIT_PAGER": envShell, "SYSTEMD_PAGER": envShell,
	"EDITOR": envShell, "VISUAL": envShell, "GIT_EDITOR": envShell, "SUDO_EDITOR": envShell,
	"FCEDIT": envShell, "GIT_SSH_COMMAND": envShell, "GIT_SSH": envShell, "GIT_EXTERNAL_DIFF": envShell,
	"GIT_ASKPASS": envShell, "SSH_ASKPASS": envShell, "SUDO_ASKPASS": envShell, "RSYNC_RSH": envShell,
	"CVS_RSH": envShell, "PROMPT_COMMAND": envShell, "BROWSER": envShell, "GIT_SEQUENCE_EDITOR": envShell,
	"LESSOPEN": envPreproc, "LESSCLOSE": envPreproc,
	"LD_PRELOAD": envLibrary, "LD_AUDIT": envLibrary, "DYLD_INSERT_LIBRARIES": envLibrary,
	"BASH_ENV": envScript, "ENV": envScript,
	"NODE_OPTIONS": envOptions, "JAVA_TOOL_OPTIONS": envOptions, "_JAVA_OPTIONS": envOptions,
	"JDK_JAVA_OPTIONS": envOptions,
	"DISPLAY":          envDisplay,
}

// envCode analyses an assignment to a variable that runs code.
func (a *analyzer) envCode(name string, w Word) {
	kind, ok := codeEnvVars[name]
	if !ok || w.Known && w.Value == "" {
		return
	}
	if !w.Known {
		if kind != envDisplay {
			a.tagf(nil, TagEval, name+" set to a value the analyser could not resolve")
		}
		return
	}
	switch kind {
	case envShell, envPreproc:
		code := w.Value
		if kind == envPreproc {
			code = strings.ReplaceAll(strings.TrimLeft(code, "|"), "%s", "")
		}
		a.envShell(name, code)
	case envLibrary:
		for _, p := range strings.FieldsFunc(w.Value, func(r rune) bool { return r == ':' || r == ' ' }) {
			a.envLoad(name, p)
		}
	case envScript:
		a.envLoad(name, w.Value)
	case envOptions:
		a.envOptions(name, w.Value)
	case envDisplay:
		a.display = displayHost(w.Value)
	}
}

// envShell walks the command line a variable names. A program the
// variable is for runs it in another process (an editor, a pager): what
// it assigns or where it moves is not this shell's. PROMPT_COMMAND runs
// in this shell before every prompt: as a trap does, at any time.
func (a *analyzer) envShell(name, code string) {
	if !a.enter() {
		return
	}
	m := a.mark()
	a.shellCode(code, nil, "")
	a.depth--
	if name == "PROMPT_COMMAND" {
		a.anyTime(m)
		return
	}
	a.rewind(m)
	a.failSet = false
}

// envLoad records a file that the variable makes programs load and run.
func (a *analyzer) envLoad(name, file string) {
	p, ok := a.absPath(a.cwd, file)
	if !ok {
		a.tagf(nil, TagOpaque, name+" names a file in an unknown directory")
		return
	}
	a.usePathSet(nil, p, action.AccessRead, false, false)
	a.eff.Execs = append(a.eff.Execs, Exec{Name: lastElem(p), Path: p, Depth: a.depth + 1})
	if a.isDownloaded(p) {
		a.tagf(nil, TagDownloadExec, name+" loads "+p)
		return
	}
	if !isLibDir(p) {
		a.tagf(nil, TagCodeEscape, name+" loads "+p)
	}
}

// isLibDir reports whether p lies in a system library directory, where
// what LD_PRELOAD loads comes from the package manager.
func isLibDir(p string) bool {
	for _, d := range [...]string{"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// envOptions finds the files interpreter options load: node's --require
// and --import, java's -javaagent.
func (a *analyzer) envOptions(name, v string) {
	fs := strings.Fields(v)
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		switch {
		case f == "-r" || f == "--require" || f == "--import" || f == "--loader" || f == "--experimental-loader":
			if i+1 < len(fs) {
				i++
				a.envModule(name, fs[i])
			}
		case strings.HasPrefix(f, "--require=") || strings.HasPrefix(f, "--import=") ||
			strings.HasPrefix(f, "--loader=") || strings.HasPrefix(f, "--experimental-loader="):
			_, m, _ := strings.Cut(f, "=")
			a.envModule(name, m)
		case strings.HasPrefix(f, "-javaagent:") || strings.HasPrefix(f, "-agentpath:"):
			_, m, _ := strings.Cut(f, ":")
			m, _, _ = strings.Cut(m, "=")
			a.envLoad(name, m)
		}
	}
}

// envModule handles a module a node option preloads: a path is a file
// that runs, a bare name a package from node_modules.
func (a *analyzer) envModule(name, m string) {
	if strings.HasPrefix(m, "/") || strings.HasPrefix(m, "./") || strings.HasPrefix(m, "../") || strings.HasPrefix(m, "~/") {
		a.envLoad(name, m)
	}
}

// displayHost returns the host of an X display ("host:1.0"), or "" for a
// local one (":0", "unix:0", "localhost:10").
func displayHost(d string) string {
	h, _, ok := strings.Cut(d, ":")
	if !ok {
		return ""
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	switch h {
	case "", "unix", "localhost", "127.0.0.1", "::1":
		return ""
	}
	return h
}
