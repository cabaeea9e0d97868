package heuristic

import (
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// matchKillDaemon fires when a command kills or stops init or a system
// or security daemon (sshd, cron, syslog, auditd, databases, firewalls,
// display managers, dbus), however the target is spelled: by name
// (pkill, killall), through a lookup whose PIDs reach kill (pidof,
// pgrep, ps | grep | awk, a case or test on listed names, a pid file), by
// PID 1, or as a unit (systemctl stop, service stop); and when it stops
// a system service, whatever its name (a per-user unit or a restart is
// matchKillForeign's). ATT&CK T1489, T1562.001.
func matchKillDaemon(in *Input) (string, bool) {
	for _, t := range in.Effects.KillTargets() {
		if t.PID == "1" {
			return t.Program + " signals init (PID 1)", true
		}
		if d, ok := shell.SystemDaemon(t.Name, t.Unit); ok {
			if oneOf(t.Program, "kill", "pkill", "killall", "skill", "snice", "systemctl", "service") {
				return t.Program + " stops " + d, true
			}
			return "kill of " + d + " found by " + t.Program, true
		}
	}
	if in.Effects == nil {
		return "", false
	}
	for _, s := range in.Effects.Signals {
		if s.Target == shell.SignalUnit && !s.User && !s.Restart {
			return s.Program + " stops the system service " + orUnknown(s.Value), true
		}
	}
	return "", false
}

// matchKillAll fires on a signal to every process the user may signal:
// kill -1, killall5, pkill -u USER, a pattern matching every name, or the
// PIDs of a process listing nothing narrows (ps -e | xargs kill).
// ATT&CK T1489, T1529.
func matchKillAll(in *Input) (string, bool) {
	if in.Effects == nil {
		return "", false
	}
	for _, s := range in.Effects.Signals {
		if s.Target == shell.SignalAll {
			if s.Value != "" {
				return s.Program + " " + s.Value + " signals every process", true
			}
			return s.Program + " signals every process", true
		}
	}
	if in.Effects.UnfilteredKill() {
		return "kill of every PID a process listing prints", true
	}
	return "", false
}

// matchKillForeign fires on a signal to processes the command did not
// start: PIDs from a process listing, a pid file, a substitution, a pipe
// or a variable the analyser cannot tie to $! of a job of its own, a PID
// written out, a name pattern (pkill -f "node server.js"), fuser -k, a
// per-user unit stopped or any service restarted. Developers do this
// daily, so it is not blocked; but what the targets are is for a judge
// or a human to say.
func matchKillForeign(in *Input) (string, bool) {
	if in.Effects == nil {
		return "", false
	}
	for _, s := range in.Effects.Signals {
		var what string
		switch s.Target {
		case shell.SignalLookup:
			what = "PIDs from " + orUnknown(strings.Join(s.From, ", "))
			if len(s.From) == 0 {
				what = "PIDs from a value it cannot resolve"
			}
		case shell.SignalPID:
			what = "PID " + s.Value
		case shell.SignalName:
			what = "processes matching " + strconv.Quote(s.Value)
		case shell.SignalUnit:
			verb := "stops"
			if s.Restart {
				verb = "restarts"
			}
			return s.Program + " " + verb + " " + orUnknown(s.Value) + ": not a process this command started", true
		default:
			continue
		}
		return s.Program + " signals " + what + ": not processes this command started", true
	}
	return "", false
}

// orUnknown names an unresolved value.
func orUnknown(s string) string {
	if s == "" {
		return "(unresolved)"
	}
	return s
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
