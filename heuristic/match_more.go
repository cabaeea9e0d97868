package heuristic

import (
	"path"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// scriptShells are the interpreters a "#!" line may name for the content
// of a written script to be judged as shell code.
var scriptShells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// writtenScript returns the shell code an action writes to a file that
// will run: a *.sh/*.bash file or content with a shell "#!" line.
func writtenScript(a *action.Action) (string, string, bool) {
	var p, content string
	switch w := a.Payload.(type) {
	case *action.WriteFilePayload:
		p, content = w.Path, w.Content
	case *action.EditFilePayload:
		p, content = w.Path, w.New
	default:
		return "", "", false
	}
	ext := path.Ext(p)
	if ext == ".sh" || ext == ".bash" || ext == ".zsh" {
		return p, content, true
	}
	if strings.HasPrefix(content, "#!") {
		line := content[2:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) > 0 {
			name := baseName(f[0])
			if name == "env" && len(f) > 1 {
				name = f[1]
			}
			if scriptShells[name] {
				return p, content, true
			}
		}
	}
	return "", "", false
}

// matchScriptContent fires when a written shell script would itself be
// blocked: writing it is the first half of running it.
func matchScriptContent(in *Input) (string, bool) {
	p, code, ok := writtenScript(in.Action)
	if !ok || len(code) > 64<<10 {
		return "", false
	}
	if d, ok := embeddedBlock(in, code); ok {
		return "script " + tilde(p, in.Home) + " " + d, true
	}
	return "", false
}

// autoRunFiles are files whose content a tool runs by itself when a
// folder is opened or a package is installed, and the key that says so.
var autoRunFiles = [...]struct{ suffix, marker string }{
	{"/.vscode/tasks.json", "folderopen"},
	{"/.devcontainer/devcontainer.json", "command"},
	{"/.devcontainer.json", "command"},
}

// matchAutoRun fires on writes that make a tool run a command on its own:
// a VS Code task run on folder open, a dev-container lifecycle command,
// an npm install hook, a Kubernetes CronJob whose command is harmful.
func matchAutoRun(in *Input) (string, bool) {
	switch w := in.Action.Payload.(type) {
	case *action.WriteFilePayload, *action.EditFilePayload:
		p, content := "", ""
		if wf, ok := w.(*action.WriteFilePayload); ok {
			p, content = wf.Path, wf.Content
		} else if ef, ok := w.(*action.EditFilePayload); ok {
			p, content = ef.Path, ef.New
		}
		low := strings.ToLower(content)
		for _, f := range autoRunFiles {
			if strings.HasSuffix(p, f.suffix) && strings.Contains(low, f.marker) {
				return "auto-run entry in " + tilde(p, in.Home), true
			}
		}
		return "", false
	}
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if d, ok := autoRunExec(in, e); ok {
			return d, true
		}
	}
	return "", false
}

func autoRunExec(in *Input, e shell.Exec) (string, bool) {
	args := e.Args
	switch e.Name {
	case "npm", "pnpm", "yarn":
		for i, a := range args {
			if i >= 2 && args[0] == "pkg" && args[1] == "set" {
				for _, hook := range []string{"scripts.preinstall=", "scripts.install=", "scripts.postinstall=", "scripts.prepare="} {
					if strings.HasPrefix(a, hook) {
						return e.Name + " sets an install hook", true
					}
				}
			}
		}
	case "kubectl", "oc":
		for i, a := range args {
			if a == "--" && i+1 < len(args) {
				if d, ok := embeddedBlock(in, shellJoin(args[i+1:])); ok {
					return e.Name + " schedules a blocked command (" + d + ")", true
				}
			}
		}
	}
	return "", false
}

// shellJoin quotes argv back into one command line.
func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// matchShellSpawn fires when a program spawns an interactive shell (find
// -exec /bin/sh, awk system("/bin/sh"), vim :!sh): there is no task an
// agent does through an interactive shell it cannot type into.
func matchShellSpawn(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if e.Depth > 0 && interactiveShell(e) {
			return "spawns an interactive " + e.Name, true
		}
	}
	return "", false
}

// matchTunnel fires on port forwards that expose or reach other machines.
func matchTunnel(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if e.Name != "ssh" && e.Name != "autossh" {
			continue
		}
		for _, a := range e.Args {
			if a == "-R" || a == "-L" || a == "-D" || a == "-w" ||
				strings.HasPrefix(a, "-R") || strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-L") {
				return "ssh " + a[:2] + " tunnel", true
			}
		}
	}
	return "", false
}

// matchRemoteChange fires when one command points git at a new remote
// and pushes: the push goes wherever the command just said.
func matchRemoteChange(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	changed, pushed := false, false
	for _, e := range fx.Execs {
		if e.Name != "git" {
			continue
		}
		for i, a := range e.Args {
			if a == "remote" && i+1 < len(e.Args) && (e.Args[i+1] == "add" || e.Args[i+1] == "set-url") {
				changed = true
			}
			if a == "push" {
				pushed = true
			}
		}
	}
	if changed && pushed {
		return "git push to a remote set by the same command", true
	}
	return "", false
}
