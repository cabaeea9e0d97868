package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// netcats are netcat flavours; "-e"/"-c" hand the socket to a program.
var netcats = map[string]bool{"nc": true, "ncat": true, "netcat": true, "nc.traditional": true,
	"nc.openbsd": true, "pwncat": true}

// socketShell inspects netcat and socat invocations that hand a socket to
// a program. listen selects bind shells (listening) or reverse shells.
func socketShell(fx *shell.Effects, listen bool) (string, bool) {
	for _, e := range fx.Execs {
		switch {
		case netcats[e.Name]:
			var exec, l bool
			for _, a := range e.Args {
				exec = exec || a == "-e" || a == "-c" || a == "--exec" || a == "--sh-exec" ||
					a == "--lua-exec" || strings.HasPrefix(a, "-e") && len(a) > 2 && a[2] == '/'
				l = l || a == "-l" || a == "--listen" || a == "-lp" || a == "-lvp" || a == "-nlvp" ||
					(len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'l') > 0)
			}
			if exec && l == listen {
				return e.Name + " with a program on the socket", true
			}
		case e.Name == "socat":
			var exec, l bool
			for _, a := range e.Args {
				la := strings.ToLower(a)
				exec = exec || strings.HasPrefix(la, "exec:") || strings.HasPrefix(la, "system:") ||
					strings.Contains(la, ",exec:") || strings.HasPrefix(la, "pty,")
				l = l || strings.Contains(la, "-listen:") || strings.Contains(la, "-l:")
			}
			if exec && l == listen {
				return "socat with a program on the socket", true
			}
		}
	}
	return "", false
}

// matchReverseShell fires on a shell wired to an outbound socket.
func matchReverseShell(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagReverseShell); ok {
		return tagDetail(t), true
	}
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	if d, ok := socketShell(fx, false); ok {
		return d, true
	}
	for _, p := range fx.Paths {
		if strings.HasPrefix(p.Path, "/dev/tcp/") || strings.HasPrefix(p.Path, "/dev/udp/") {
			for _, e := range fx.Execs {
				if isInterpreter(e.Name) {
					return e.Name + " wired to " + p.Path, true
				}
			}
		}
	}
	return "", false
}

// matchBindShell fires on a shell served on a listening socket.
func matchBindShell(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagBindShell); ok {
		return tagDetail(t), true
	}
	if in.Effects == nil {
		return "", false
	}
	return socketShell(in.Effects, true)
}

// matchContainerEscape fires on the analyser's container-escape fact and
// on direct use of the container runtime's socket.
func matchContainerEscape(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagContainerEscape); ok {
		return tagDetail(t), true
	}
	if u, ok := findPath(in, func(u use) bool {
		return oneOf(u.path, "/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
			"/var/run/crio/crio.sock", "/run/podman/podman.sock") && !oneOf(u.prog, "docker", "podman", "ls", "stat", "test", "[")
	}); ok {
		return "runtime socket " + u.path, true
	}
	return "", false
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if len(m) == 4 && strings.Trim(m, "01234567") == "" {
		return m[0] == '2' || m[0] == '4' || m[0] == '6'
	}
	return strings.Contains(m, "+s") || strings.Contains(m, "=s") || strings.Contains(m, "+xs") ||
		strings.Contains(m, "+sx")
}

// worldWritable reports whether a chmod mode grants write to others.
func worldWritable(m string) bool {
	if n := len(m); n >= 3 && strings.Trim(m, "01234567") == "" {
		o := m[n-1]
		return o == '2' || o == '3' || o == '6' || o == '7'
	}
	return strings.Contains(m, "o+w") || strings.Contains(m, "a+w") || strings.Contains(m, "+rwx") ||
		strings.HasPrefix(m, "+w") || strings.Contains(m, "o=rw") || strings.Contains(m, "a=rw")
}

// adminGroups grant root or its equivalent to their members.
var adminGroups = map[string]bool{"sudo": true, "wheel": true, "root": true, "admin": true, "adm": true,
	"docker": true, "lxd": true, "disk": true, "shadow": true, "libvirt": true}

// matchPrivilegeGrant fires on durable privilege grants: setuid bits or
// capabilities on shells and interpreters (or on binaries in scratch
// dirs), admin group membership, uid 0 accounts, writes to sudoers and
// account databases, world-writable modes on system files.
func matchPrivilegeGrant(in *Input) (string, bool) {
	if u, ok := findPath(in, func(u use) bool {
		return u.access&(action.AccessWrite|action.AccessDelete) != 0 && privilegePaths.has(u.path, u.glob, in.Home)
	}); ok {
		return "write to " + u.path, true
	}
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if d, ok := privilegeExec(in, e); ok {
			return d, true
		}
	}
	return "", false
}

func privilegeExec(in *Input, e shell.Exec) (string, bool) {
	args := e.Args
	switch e.Name {
	case "chmod":
		mode, targets := splitMode(args)
		for _, t := range targets {
			p := resolveArg(t, in.Workspace, in.Home)
			if setuidMode(mode) && (isInterpreter(baseName(p)) || isScratch(p)) {
				return "setuid bit on " + tilde(p, in.Home), true
			}
			if worldWritable(mode) && (systemPaths.match(p, in.Home) || persistencePaths.match(p, in.Home)) {
				return "world-writable " + p, true
			}
		}
	case "chpasswd", "chgpasswd":
		return e.Name + " sets account passwords", true
	case "install":
		mode := ""
		for i, a := range args {
			if (a == "-m" || a == "--mode") && i+1 < len(args) {
				mode = args[i+1]
			} else if strings.HasPrefix(a, "--mode=") {
				mode = a[len("--mode="):]
			}
		}
		if setuidMode(mode) {
			for _, a := range args {
				if isInterpreter(baseName(a)) {
					return "setuid copy of " + a, true
				}
			}
		}
	case "setcap":
		joined := strings.ToLower(strings.Join(args, " "))
		if strings.Contains(joined, "cap_setuid") || strings.Contains(joined, "cap_sys_admin") ||
			strings.Contains(joined, "cap_dac_override") || strings.Contains(joined, "cap_sys_ptrace") {
			return "capabilities granted by setcap", true
		}
	case "usermod", "gpasswd", "adduser", "addgroup", "useradd", "dseditgroup":
		for i, a := range args {
			for _, g := range strings.Split(a, ",") {
				if adminGroups[g] && i > 0 {
					return e.Name + " adds a user to " + g, true
				}
			}
			if (a == "-u" || a == "--uid") && i+1 < len(args) && args[i+1] == "0" {
				return e.Name + " creates a uid 0 account", true
			}
		}
	}
	return "", false
}

// splitMode returns chmod's mode and its target operands.
func splitMode(args []string) (mode string, targets []string) {
	for _, a := range args {
		switch {
		case isFlag(a) && !setuidMode(a) && !strings.ContainsAny(a[1:], "rwxst"):
			continue
		case a == "-R" || a == "--recursive" || a == "-v" || a == "-f" || a == "-c":
			continue
		case mode == "":
			mode = a
		default:
			targets = append(targets, a)
		}
	}
	return mode, targets
}

// matchDestroyRecursive fires on deletions of the root, system
// directories, the home directory or the workspace root, and on
// recursive mode or owner changes of system directories.
func matchDestroyRecursive(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagDestructive); ok {
		return tagDetail(t), true
	}
	if u, ok := findPath(in, func(u use) bool {
		if u.access&action.AccessDelete == 0 {
			return false
		}
		if u.glob && findFiltered(in) && strings.HasSuffix(u.path, "/*") {
			// find ... -name x -exec rm {}: a filtered delete under the
			// start directory, critical only at the root or a system root.
			d := strings.TrimSuffix(u.path, "/*")
			return d == "" || isTopLevelCritical(d)
		}
		if u.glob {
			return isCriticalGlob(u.path, in.Home, in.Workspace)
		}
		if u.prog == "find" && findFiltered(in) {
			return u.path == "/" || isTopLevelCritical(u.path)
		}
		return isCriticalDir(u.path, in.Home, in.Workspace)
	}); ok {
		return "delete of " + tilde(u.path, in.Home), true
	}
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	for _, e := range fx.Execs {
		if !oneOf(e.Name, "chmod", "chown", "chgrp", "setfacl") || !hasFlag(e.Args, 'R', "--recursive") {
			continue
		}
		for _, a := range e.Args {
			if p := resolveArg(a, in.Workspace, in.Home); p != "" && !isFlag(a) &&
				(p == "/" || isTopLevelCritical(p) || isSystemChild(p)) {
				return e.Name + " -R " + p, true
			}
		}
	}
	return "", false
}

// findFiltered reports whether a find in the command selects what it
// deletes (-name, -path, -mtime, ...): it then deletes inside its start
// directory, not the directory.
func findFiltered(in *Input) bool {
	if in.Effects == nil {
		return false
	}
	for _, e := range in.Effects.Execs {
		if e.Name != "find" {
			continue
		}
		for _, a := range e.Args {
			if oneOf(a, "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-mtime", "-mmin",
				"-newer", "-size", "-empty", "-user", "-wholename", "-atime", "-ctime") {
				return true
			}
		}
	}
	return false
}

func isTopLevelCritical(p string) bool {
	for _, r := range criticalRoots {
		if p == r {
			return true
		}
	}
	return false
}

// isSystemChild reports a direct child of a critical root ("/usr/lib").
func isSystemChild(p string) bool {
	for _, r := range criticalRoots {
		if rel, ok := under(p, r); ok && rel != "" && strings.IndexByte(rel, '/') < 0 && r != "/home" && r != "/Users" {
			return true
		}
	}
	return false
}

// matchDiskWipe fires on raw device writes and filesystem formatting.
func matchDiskWipe(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagDeviceWrite, shell.TagFilesystemFormat); ok {
		return tagDetail(t), true
	}
	if u, ok := findPath(in, func(u use) bool {
		return u.access&action.AccessWrite != 0 && strings.HasPrefix(u.path, "/dev/") &&
			!isHarmlessDevice(u.path) && !strings.HasPrefix(u.path, "/dev/tcp/") &&
			!strings.HasPrefix(u.path, "/dev/udp/") && !strings.HasPrefix(u.path, "/dev/shm/")
	}); ok {
		return "write to device " + u.path, true
	}
	return "", false
}

// matchForkBomb fires on self-replicating functions.
func matchForkBomb(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagForkBomb); ok {
		return tagDetail(t), true
	}
	cmd := commandText(in)
	if strings.Contains(cmd, "()") && strings.IndexByte(cmd, '|') >= 0 && forkBombShape(cmd) {
		return "fork bomb", true
	}
	return "", false
}

// forkBombShape finds "f(){ f|f& }" with any name once spaces are ignored.
func forkBombShape(cmd string) bool {
	var b [512]byte
	n := 0
	for i := 0; i < len(cmd) && n < len(b); i++ {
		if c := cmd[i]; c != ' ' && c != '\t' && c != '\n' {
			b[n] = c
			n++
		}
	}
	s := string(b[:n])
	for off := 0; ; {
		i := strings.Index(s[off:], "(){")
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		j := i
		for j > 0 && s[j-1] != ';' && s[j-1] != '&' && s[j-1] != '|' && s[j-1] != '{' {
			j--
		}
		name := s[j:i]
		if name != "" && strings.Contains(s[i:], name+"|"+name+"&") {
			return true
		}
	}
}

// historyMarkers disable or clear shell history in a command.
var historyMarkers = [...]string{"unset HISTFILE", "HISTFILE=/dev/null", "set +o history",
	"HISTSIZE=0", "HISTFILESIZE=0", "history -c", "history -w /dev/null"}

// matchDefenseEvasion fires on history wiping, log tampering and
// disabling security controls, and on writes or deletes of logs and
// histories.
func matchDefenseEvasion(in *Input) (string, bool) {
	if t, ok := findTag(in, shell.TagHistoryWipe, shell.TagLogTamper, shell.TagSecurityOff); ok {
		return tagDetail(t), true
	}
	if u, ok := findPath(in, func(u use) bool {
		if u.access&(action.AccessWrite|action.AccessDelete) == 0 ||
			u.access&action.AccessDelete == 0 && oneOf(u.prog, "chown", "chgrp", "chmod", "setfacl") {
			return false // owner and mode changes leave the records intact
		}
		return logPaths.has(u.path, u.glob, in.Home) || historyPaths.has(u.path, u.glob, in.Home)
	}); ok {
		return u.access.String() + " of " + tilde(u.path, in.Home), true
	}
	if cmd := commandText(in); strings.Contains(cmd, "HIST") || strings.Contains(cmd, "history") {
		for _, m := range historyMarkers {
			if strings.Contains(cmd, m) {
				return m, true
			}
		}
	}
	return "", false
}

// envSetup programs print shell code for their own set-up; evaluating
// their output is the documented way to use them.
var envSetup = map[string]bool{"ssh-agent": true, "direnv": true, "pyenv": true, "rbenv": true,
	"nodenv": true, "goenv": true, "jenv": true, "brew": true, "conda": true, "starship": true,
	"zoxide": true, "fnm": true, "mise": true, "rtx": true, "keychain": true, "thefuck": true,
	"dircolors": true, "opam": true, "luarocks": true, "gpg-agent": true, "fzf": true}

// matchDynamicCommand fires on command names and eval'd code the
// analyser cannot resolve, except the set-up idiom
// `eval "$(tool init ...)"` of well-known environment managers.
func matchDynamicCommand(in *Input) (string, bool) {
	fx := in.Effects
	if fx == nil {
		return "", false
	}
	idiom := -1
	for _, t := range fx.Tags {
		switch t.Kind {
		case shell.TagDynamicCommand, shell.TagOpaque:
			return tagDetail(t) + pathHint(t, commandText(in), in.TempDir), true
		case shell.TagEval:
			if idiom < 0 {
				idiom = 0
				if evalIdiom(commandText(in)) {
					idiom = 1
				}
			}
			if idiom == 0 {
				return tagDetail(t), true
			}
		}
	}
	return "", false
}

// evalIdiom reports whether cmd is exactly `eval "$(prog args)"` (or with
// backticks, or unquoted) for an environment set-up program.
func evalIdiom(cmd string) bool {
	s, ok := strings.CutPrefix(strings.TrimSpace(cmd), "eval ")
	if !ok {
		return false
	}
	s = strings.Trim(strings.TrimSpace(s), `"`)
	switch {
	case strings.HasPrefix(s, "$(") && strings.HasSuffix(s, ")"):
		s = s[2 : len(s)-1]
	case strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") && len(s) > 1:
		s = s[1 : len(s)-1]
	default:
		return false
	}
	if strings.ContainsAny(s, ";&|`$()<>\n") {
		return false
	}
	f := strings.Fields(s)
	return len(f) > 0 && envSetup[baseName(f[0])]
}

// matchTimestomp fires when touch copies or forges the times of a file
// outside the workspace. Inside it, old times are how tests of build tools
// and caches are set up.
func matchTimestomp(in *Input) (string, bool) {
	t, ok := findTag(in, shell.TagTimestomp)
	if !ok {
		return "", false
	}
	if u, ok := findPath(in, func(u use) bool {
		return u.prog == "touch" && u.access&action.AccessWrite != 0 &&
			(in.Workspace == "" || !inside(u.path, in.Workspace))
	}); ok {
		return tagDetail(t) + " on " + tilde(u.path, in.Home), true
	}
	return "", false
}
