package heuristic

import (
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// matchKillDaemon fires when a command kills or stops init or a system
// or security daemon (sshd, cron, syslog, auditd, databases, firewalls,
// display managers, dbus), however the target is spelled: by name
// (pkill, killall), through a lookup whose PIDs reach kill (pidof,
// pgrep, ps | grep | awk, a pid file), by PID 1, or as a unit
// (systemctl stop, service stop). ATT&CK T1489, T1562.001.
func matchKillDaemon(in *Input) (string, bool) {
	for _, t := range in.Effects.KillTargets() {
		if t.PID == "1" {
			return t.Program + " signals init (PID 1)", true
		}
		if d, ok := shell.SystemDaemon(t.Name, t.Unit); ok {
			if oneOf(t.Program, "kill", "pkill", "killall", "skill", "systemctl", "service") {
				return t.Program + " stops " + d, true
			}
			return "kill of " + d + " found by " + t.Program, true
		}
	}
	return "", false
}

// worldWritableTargets returns the paths a world-writable mode change
// reaches: its operands, or, when they are unresolvable (find -exec
// chmod 777 {}), every path the program writes.
func worldWritableTargets(in *Input) []string {
	var out []string
	for _, m := range in.Effects.ModeChanges() {
		if !m.WorldWritable || m.Program == "umask" {
			continue
		}
		unknown := len(m.Targets) == 0
		for _, t := range m.Targets {
			if p := resolveArg(t, in.Workspace, in.Home); p != "" {
				out = append(out, p)
			} else {
				unknown = true
			}
		}
		if unknown {
			for _, p := range in.Effects.Paths {
				if p.Program == m.Program && p.Access&action.AccessWrite != 0 {
					out = append(out, strings.TrimSuffix(p.Path, "/*"))
				}
			}
		}
	}
	return out
}

// matchWorldWritableOutside fires on world-writable modes given to paths
// outside the workspace and the scratch dirs: the home directory and its
// bin dirs, PATH directories, system trees. Any local user can then plant
// code that the agent's user or root runs (T1222, T1574.009).
func matchWorldWritableOutside(in *Input) (string, bool) {
	for _, p := range worldWritableTargets(in) {
		if in.Workspace != "" && inside(p, in.Workspace) || isScratch(p) {
			continue
		}
		return "world-writable " + tilde(p, in.Home), true
	}
	return "", false
}

// matchWorldWritable fires on world-writable modes inside the workspace
// or a scratch dir, and on a umask that makes every later file writable
// by others: the workspace holds code the agent builds and runs.
func matchWorldWritable(in *Input) (string, bool) {
	if ts := worldWritableTargets(in); len(ts) > 0 {
		return "world-writable " + tilde(ts[0], in.Home), true
	}
	for _, m := range in.Effects.ModeChanges() {
		if m.WorldWritable {
			return m.Program + " " + m.Mode + " grants write to others", true
		}
	}
	return "", false
}
