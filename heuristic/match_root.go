package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// shellNames are the command interpreters whose bare run is an
// interactive shell.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"fish": true, "csh": true, "tcsh": true, "ash": true, "mksh": true}

// interactiveShell reports whether e starts a shell that reads commands
// from its terminal: no -c, no script operand.
func interactiveShell(e shell.Exec) bool {
	name := e.Name
	if name == "" {
		name = baseName(e.Path)
	}
	if !shellNames[name] {
		return false
	}
	for _, a := range e.Args {
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			return false
		case a == "":
			return false // an unresolved operand may be a script
		case a == "-" || strings.HasPrefix(a, "-"):
			continue
		default:
			return false // a script operand
		}
	}
	return true
}

// matchRootShell fires when a privilege change wraps an interactive
// shell: the GTFOBins pattern (sudo find . -exec /bin/sh, sudo awk
// 'BEGIN{system("/bin/sh")}', sudo env /bin/sh, pkexec /bin/sh) and the
// shell escapes of privileged editors and pagers.
func matchRootShell(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	priv, ok := findTag(in, shell.TagPrivilege)
	if !ok {
		return "", false
	}
	for _, e := range fx.Execs {
		if e.Depth > 0 && interactiveShell(e) {
			return "an interactive shell under " + priv.Program, true
		}
	}
	if t, ok := findTag(in, shell.TagCodeEscape); ok {
		return "a code escape (" + tagDetail(t) + ") under " + priv.Program, true
	}
	return "", false
}

// downloaders fetch files from the network.
var downloaders = map[string]bool{"curl": true, "wget": true, "aria2c": true, "fetch": true,
	"http": true, "https": true, "xh": true, "axel": true, "scp": true, "rsync": true, "ftp": true,
	"tftp": true, "lftp": true, "sftp": true}

// installers run code from the package or file they are given.
var installers = map[string]bool{"dpkg": true, "rpm": true, "apt": true, "apt-get": true, "yum": true,
	"dnf": true, "zypper": true, "pacman": true, "apk": true, "pip": true, "pip3": true, "npm": true,
	"gem": true, "installer": true, "msiexec": true, "source": true, ".": true, "chmod": true}

// matchDownloadRun fires when a file written by a downloader is run or
// installed by the same command (curl -o x.sh URL && sh x.sh; wget -O
// x.deb URL && sudo dpkg -i x.deb).
func matchDownloadRun(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	var fetched []string
	for _, u := range fx.Paths {
		if u.Access&action.AccessWrite != 0 && downloaders[u.Program] && !u.Glob {
			fetched = append(fetched, u.Path)
		}
	}
	if len(fetched) == 0 {
		return "", false
	}
	for _, f := range fetched {
		for _, e := range fx.Execs {
			if e.Path == f {
				return "runs downloaded " + tilde(f, in.Home), true
			}
		}
		for _, u := range fx.Paths {
			if u.Path == f && u.Access&action.AccessRead != 0 &&
				(installers[u.Program] || isInterpreter(u.Program)) && u.Program != "find" {
				return u.Program + " runs downloaded " + tilde(f, in.Home), true
			}
		}
	}
	return "", false
}

// matchDownloadExec fires on the analyser's download-and-execute fact,
// and on an interpreter that both fetches from the network and evaluates
// code it could not see (exec(urlopen(...).read()), eval get "URL").
func matchDownloadExec(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagDownloadExec); ok {
		return tagDetail(t), true
	}
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, t := range fx.Tags {
		if t.Kind != shell.TagEval || !isInterpreter(t.Program) {
			continue
		}
		for _, n := range fx.Network {
			if n.Program == t.Program && !n.Listen {
				host := n.Host
				if host == "" {
					host = "the network"
				}
				return t.Program + " evaluates code fetched from " + host, true
			}
		}
	}
	return "", false
}
