package shell

import "strings"

// KillTarget is a process a command signals: by PID as written, by a
// name it matches, or found through a lookup (pidof, pgrep, ps | grep,
// a pid file) whose result reaches a kill in the same command.
type KillTarget struct {
	Program string // the killer or the lookup that named the target
	PID     string // a literal PID ("1"), "" when the target is a name
	Name    string // a process or unit name, "" when the target is a PID
	Unit    bool   // Name is a service unit (systemctl, service)
}

// killers signal or stop processes or services.
var killers = map[string]bool{"kill": true, "pkill": true, "killall": true, "skill": true}

// lookups name processes whose PIDs a kill in the same command receives.
var lookups = map[string]bool{"pgrep": true, "pidof": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "awk": true, "gawk": true, "mawk": true, "ps": true, "cat": true,
	"head": true, "tail": true, "lsof": true, "fuser": true}

// KillTargets returns the processes and services the command kills or
// stops. A signal 0 ("kill -0") only checks that a process exists and
// targets nothing. Lookups and pid files count only when a kill takes
// an operand the analyser could not resolve (a substitution, a variable,
// xargs' stdin): that is where their PIDs may arrive.
func (fx *Effects) KillTargets() []KillTarget {
	if fx == nil {
		return nil
	}
	var out []KillTarget
	fed := false // a kill takes an operand the analyser could not resolve
	for _, e := range fx.Execs {
		switch {
		case e.Name == "kill" && !signalZero(e.Args):
			for _, a := range killOperands(e.Args) {
				fed = fed || a == ""
				if a != "" && strings.Trim(a, "0123456789") == "" {
					out = append(out, KillTarget{Program: e.Name, PID: a})
				}
			}
		case killers[e.Name] && !signalZero(e.Args):
			for _, a := range killOperands(e.Args) {
				fed = fed || a == ""
				for _, w := range patternWords(a) {
					out = append(out, KillTarget{Program: e.Name, Name: w})
				}
			}
		case e.Name == "systemctl" || e.Name == "service":
			out = append(out, unitStops(e)...)
		}
	}
	if !fed {
		// Every kill names its targets itself (a PID, a job "%1", a
		// name): a lookup elsewhere in the command feeds none of them
		// ("grep -rn redis src; kill %1").
		return out
	}
	for _, u := range fx.Paths {
		// "xargs kill < /run/crond.pid": a pid file read by the command.
		if strings.HasSuffix(u.Path, ".pid") {
			out = append(out, KillTarget{Program: "pid file", Name: u.Path})
		}
	}
	for _, e := range fx.Execs {
		if !lookups[e.Name] {
			continue
		}
		for _, a := range e.Args {
			if len(a) > 1 && a[0] == '-' {
				continue
			}
			if (e.Name == "cat" || e.Name == "head" || e.Name == "tail") && !strings.HasSuffix(a, ".pid") {
				continue // a file read next to a kill names a process only as a pid file
			}
			for _, w := range patternWords(a) {
				out = append(out, KillTarget{Program: e.Name, Name: w})
			}
		}
	}
	return out
}

// signalZero reports whether kill's arguments send signal 0.
func signalZero(args []string) bool {
	for i, a := range args {
		if a == "-0" || (a == "-s" || a == "-n" || a == "--signal") && i+1 < len(args) && args[i+1] == "0" {
			return true
		}
	}
	return false
}

// killOperands drops options and their values (a signal) from a kill's
// arguments.
func killOperands(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-s" || a == "-n" || a == "--signal" || a == "-u" || a == "-U" || a == "--user" ||
			a == "-g" || a == "-G" || a == "-P" || a == "-t":
			i++
		case a == "--":
			return append(out, args[i+1:]...)
		case len(a) > 1 && a[0] == '-' && a != "-1":
		default:
			out = append(out, a)
		}
	}
	return out
}

// patternWords splits a process pattern ("postgres -D /var/lib",
// "/sshd/ {print $2}", "[s]shd") into the words that may name a program.
func patternWords(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("_-.@[]^$/\\:", r))
	})
}

// unitStops returns the units "systemctl stop|kill|disable|mask U" and
// "service U stop" take down.
func unitStops(e Exec) []KillTarget {
	var ops []string
	for _, a := range e.Args {
		if !(len(a) > 1 && a[0] == '-') {
			ops = append(ops, a)
		}
	}
	if len(ops) < 2 {
		return nil
	}
	var out []KillTarget
	switch {
	case e.Name == "systemctl" && (ops[0] == "stop" || ops[0] == "kill" || ops[0] == "disable" || ops[0] == "mask"):
		for _, u := range ops[1:] {
			out = append(out, KillTarget{Program: e.Name, Name: u, Unit: true})
		}
	case e.Name == "service" && (ops[1] == "stop" || ops[1] == "disable"):
		out = append(out, KillTarget{Program: e.Name, Name: ops[0], Unit: true})
	}
	return out
}
