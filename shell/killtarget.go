package shell

import (
	"slices"
	"strings"
)

// Signals: which processes a command signals, decided by where the
// target's value comes from (dataflow), not by the shape of the command.
//
// A PID operand of kill is the command's own process only when every
// unknown part of its value is "$!" — the PID of a job this command put
// in the background — directly or through variables, function arguments,
// loops and subshells that carry it unchanged (wOwnPid, word.go), or a job
// spec (%1, %%, %+). Any other value the analyser cannot resolve — the
// output of a substitution, a pipeline into xargs or a "while read" loop,
// a variable it cannot tie to $!, a pid file, an awk system() call — is a
// process the command did not start (SignalLookup), whatever the names
// and shapes around it. A name pattern (pkill, killall) matches processes
// the command did not start either (SignalName). What reaches every
// process is SignalAll: kill -1, killall5, pkill -u USER, a pattern that
// matches any name. Service managers stop units (SignalUnit).
//
// Decisions kept here and judged by the heuristics: signal 0 (kill -0,
// pkill -0) sends nothing, it only checks that a process exists; listing
// signals (kill -l, killall -l) sends nothing; timeout signals only the
// child it starts; docker kill/stop signal containers through the Docker
// API and are judged as container operations, not here.

// SignalTarget says which processes a signal reaches.
type SignalTarget uint8

// Signal targets.
const (
	SignalOwn    SignalTarget = iota // a process this command started ($!, a variable holding it, %1)
	SignalPID                        // a PID written out in the command (kill 4242, kill -- -4242)
	SignalName                       // the processes a name or pattern matches (pkill, killall, fuser -k)
	SignalLookup                     // a PID the analyser cannot tie to a process this command started
	SignalAll                        // every process the user may signal (kill -1, killall5, pkill -u)
	SignalUnit                       // a service stopped by its manager (systemctl, service, init.d)
)

var signalTargetNames = [...]string{"own", "pid", "name", "lookup", "all", "unit"}

// String names the target kind (stable; used in reasons).
func (t SignalTarget) String() string {
	if int(t) < len(signalTargetNames) {
		return signalTargetNames[t]
	}
	return "unknown"
}

// Signal is one target of a signal the command sends.
type Signal struct {
	Program string // kill, pkill, killall, systemctl, ...
	Target  SignalTarget
	Value   string   // the PID, pattern or unit as written; "" when unresolved
	From    []string // SignalLookup: where the value comes from (programs, files), when seen
	User    bool     // SignalUnit: a per-user unit (systemctl --user)
	Restart bool     // SignalUnit: restarted, not left stopped
}

// maxSignals bounds Effects.Signals; past it one SignalLookup stands for
// the rest, so the command is never taken as signalling less than it does.
const maxSignals = 64

// signal records one target.
func (a *analyzer) signal(s Signal) {
	switch {
	case len(a.eff.Signals) < maxSignals:
		a.eff.Signals = append(a.eff.Signals, s)
	case len(a.eff.Signals) == maxSignals:
		a.eff.Signals = append(a.eff.Signals, Signal{Program: s.Program, Target: SignalLookup, From: []string{"too many signals to list"}})
	}
}

// pidSources names where the unresolved words of c come from: the
// sources met while resolving them and what its standard input carries
// (xargs kill), bounded.
func (a *analyzer) pidSources(c *Call) []string {
	var out []string
	add := func(s string) {
		if s != "" && !strings.HasPrefix(s, "__parallax") && len(out) < 8 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if c.smark <= len(a.wsrc) {
		for _, s := range a.wsrc[c.smark:] {
			add(s.name)
		}
	}
	if c.stdin != nil && c.stdin.piped {
		for _, s := range c.stdin.srcs {
			add(s.name)
		}
		add(c.stdin.from)
	}
	return out
}

// checkKill records kill's targets (see the top of this file); "kill -1"
// and "kill 1" are also system changes.
func checkKill(c *Call) {
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		if w.Known {
			args[i] = w.Value
		}
	}
	if signalZero(args) || listsSignals(args) {
		return // signal 0 is sent to nobody: it only checks that the processes exist
	}
	for _, w := range killOperandWords(c.Args) {
		switch {
		case !w.Known && (w.flags&wOwnPid != 0 || strings.HasPrefix(w.Value, "%")):
			c.an.signal(Signal{Program: c.Name, Target: SignalOwn})
		case !w.Known:
			c.an.signal(Signal{Program: c.Name, Target: SignalLookup, From: c.an.pidSources(c)})
		case strings.HasPrefix(w.Value, "%"):
			c.an.signal(Signal{Program: c.Name, Target: SignalOwn, Value: w.Value})
		case w.Value == "-1":
			c.Tag(TagSystemChange, "kill -1")
			c.an.signal(Signal{Program: c.Name, Target: SignalAll, Value: w.Value})
		default:
			if w.Value == "1" || w.Value == "0" {
				c.Tag(TagSystemChange, "kill "+w.Value)
			}
			c.an.signal(Signal{Program: c.Name, Target: SignalPID, Value: w.Value})
		}
	}
}

// listsSignals reports whether kill's or killall's arguments only list
// signal names (kill -l, kill -L, killall -l).
func listsSignals(args []string) bool {
	for _, a := range args {
		if a == "-l" || a == "-L" || a == "--list" || a == "--table" {
			return true
		}
	}
	return false
}

// killOperandWords returns kill's operands: the first option is the
// signal (-9, -KILL, -s SIG), an option after it or after "--" is a
// negative PID (-1: every process, -N: a process group).
func killOperandWords(args []Word) []Word {
	var out []Word
	sig := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w.Known && w.Value == "--":
			return append(out, args[i+1:]...)
		case w.Known && (w.Value == "-s" || w.Value == "-n" || w.Value == "--signal" || w.Value == "-q"):
			i++
			sig = true
		case w.Known && len(w.Value) > 1 && w.Value[0] == '-' && !sig && !(w.Value == "-1" && i == len(args)-1):
			sig = true // "-9", "-KILL", "-SIGTERM"; a lone "-1" is taken as every process
		default:
			out = append(out, w)
		}
	}
	return out
}

// broadPatterns match every process name.
var broadPatterns = map[string]bool{"": true, ".": true, ".*": true, ".+": true, "^": true, "$": true,
	"^.*$": true, "*": true, "-1": true}

// checkPkill records the targets of pkill, killall, skill and snice:
// every process of a user, or a name pattern; kills of init and the
// logging and audit daemons are also system changes.
func checkPkill(c *Call) {
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		if w.Known {
			args[i] = w.Value
		}
	}
	if signalZero(args) || c.Name == "killall" && listsSignals(args) {
		return
	}
	if _, ok := c.Flag("-u", "-U", "--user", "-G", "-g", "-s", "-t"); ok && len(c.Positional) == 0 {
		c.Tag(TagSystemChange, c.Name+" -u")
		c.an.signal(Signal{Program: c.Name, Target: SignalAll})
		return
	}
	if w, ok := c.Flag("-P"); ok && len(c.Positional) == 0 {
		// pkill -P PPID: the children of a process, found by the system.
		c.an.signal(Signal{Program: c.Name, Target: SignalLookup, Value: w.Value, From: []string{c.Name + " -P"}})
		return
	}
	for _, w := range c.Positional {
		switch {
		case !w.Known:
			c.an.signal(Signal{Program: c.Name, Target: SignalLookup, Value: w.Value, From: c.an.pidSources(c)})
		case broadPatterns[w.Value]:
			c.Tag(TagSystemChange, c.Name+" "+w.Value)
			c.an.signal(Signal{Program: c.Name, Target: SignalAll, Value: w.Value})
		default:
			switch w.Value {
			case "init", "systemd", "sshd", "auditd", "rsyslogd", "syslogd", "journald", "systemd-journald":
				c.Tag(TagSystemChange, c.Name+" "+w.Value)
			}
			if w.Value == "auditd" || w.Value == "rsyslogd" || w.Value == "syslogd" || w.Value == "systemd-journald" {
				c.Tag(TagSecurityOff, c.Name+" "+w.Value)
			}
			c.an.signal(Signal{Program: c.Name, Target: SignalName, Value: w.Value})
		}
	}
}

// checkKillall5 records killall5: every process but the kernel's and the
// caller's session.
func checkKillall5(c *Call) {
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		args[i] = w.Value
	}
	if signalZero(args) {
		return
	}
	c.Tag(TagSystemChange, "killall5")
	c.an.signal(Signal{Program: c.Name, Target: SignalAll})
}

// unitVerbs are the systemctl verbs that stop a unit (true) or restart
// it (false).
var unitVerbs = map[string]bool{"stop": true, "kill": true, "mask": true, "disable": true,
	"restart": false, "try-restart": false, "reload-or-restart": false, "force-reload": false,
	"condrestart": false, "try-reload-or-restart": false}

// signalUnits records the units a service manager stops or restarts:
// "systemctl VERB U...", "service U VERB", "/etc/init.d/U VERB".
func (a *analyzer) signalUnits(c *Call, verb string, units []Word, user bool) {
	stop, ok := unitVerbs[verb]
	if !ok {
		return
	}
	for _, u := range units {
		s := Signal{Program: c.Name, Target: SignalUnit, User: user, Restart: !stop}
		if u.Known {
			s.Value = u.Value
		}
		a.signal(s)
	}
}

// checkFuserKill records fuser -k: it kills whatever uses the files or
// ports it names, processes the command did not start.
func checkFuserKill(c *Call) {
	kill := false
	for _, w := range c.Args {
		v := w.Value
		if v == "--kill" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'k') {
			kill = true
		}
	}
	if !kill {
		return
	}
	var on []string
	for _, w := range c.Positional {
		on = append(on, w.Value)
	}
	c.an.signal(Signal{Program: c.Name, Target: SignalLookup, From: []string{"fuser -k " + strings.Join(on, " ")}})
}

// KillTarget is a process a command signals: by PID as written, by a
// name it matches, or found through a lookup (pidof, pgrep, ps | grep,
// a pid file, a case or test on a listed name) whose result reaches a
// kill in the same command.
type KillTarget struct {
	Program string // the killer or the lookup that named the target
	PID     string // a literal PID ("1"), "" when the target is a name
	Name    string // a process or unit name, "" when the target is a PID
	Unit    bool   // Name is a service unit (systemctl, service)
}

// lookups name processes whose PIDs a kill in the same command receives:
// process listings and the filters that pick lines of them.
var lookups = map[string]bool{"pgrep": true, "pidof": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "awk": true, "gawk": true, "mawk": true, "ps": true, "cat": true,
	"head": true, "tail": true, "lsof": true, "fuser": true, "[": true, "test": true, "sed": true}

// KillTargets returns the processes and services the command kills or
// stops, by name or PID. Lookups, filters and pid files count only when
// a signal's target is a value the analyser could not resolve
// (SignalLookup): that is where their PIDs may arrive. The names a case
// pattern or a [[ ]] test compares with are filters too.
func (fx *Effects) KillTargets() []KillTarget {
	if fx == nil {
		return nil
	}
	var out []KillTarget
	fed := false
	for _, s := range fx.Signals {
		switch s.Target {
		case SignalPID:
			out = append(out, KillTarget{Program: s.Program, PID: s.Value})
		case SignalName:
			for _, w := range patternWords(s.Value) {
				out = append(out, KillTarget{Program: s.Program, Name: w})
			}
		case SignalUnit:
			if !s.Restart { // a restarted unit runs again
				out = append(out, KillTarget{Program: s.Program, Name: s.Value, Unit: true})
			}
		case SignalLookup:
			fed = true
			for _, w := range patternWords(s.Value) {
				out = append(out, KillTarget{Program: s.Program, Name: w})
			}
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
		if lookups[e.Name] {
			out = append(out, lookupNames(e)...)
		}
	}
	for _, n := range fx.filters {
		for _, w := range patternWords(n) {
			out = append(out, KillTarget{Program: "filter", Name: w})
		}
	}
	return out
}

// lookupNames returns the names a lookup or filter selects processes by.
func lookupNames(e Exec) []KillTarget {
	var out []KillTarget
	for i, a := range e.Args {
		if len(a) > 1 && a[0] == '-' {
			continue
		}
		switch e.Name {
		case "cat", "head", "tail":
			if !strings.HasSuffix(a, ".pid") {
				continue // a file read next to a kill names a process only as a pid file
			}
		case "ps":
			if i == 0 || e.Args[i-1] != "-C" {
				continue // format and sort keys, not names: ps names a process only with -C
			}
		}
		for _, w := range patternWords(a) {
			out = append(out, KillTarget{Program: e.Name, Name: w})
		}
	}
	return out
}

// UnfilteredKill reports whether a signal goes to PIDs taken from a
// process listing that nothing narrows to some processes: every PID ps,
// /proc or pgrep lists ("ps -eo pid= | xargs kill", "kill $(ps -e -o
// pid=)", "for p in /proc/[0-9]*; do kill ${p#/proc/}; done").
func (fx *Effects) UnfilteredKill() bool {
	if fx == nil {
		return false
	}
	fed := false
	for _, s := range fx.Signals {
		fed = fed || s.Target == SignalLookup
	}
	if !fed || len(fx.filters) > 0 {
		return false
	}
	listed := false
	for _, u := range fx.Paths {
		listed = listed || strings.HasPrefix(u.Path, "/proc/") && u.Glob
	}
	for _, e := range fx.Execs {
		switch {
		case e.Name == "ps":
			listed = listed || !slices.ContainsFunc(e.Args, func(a string) bool {
				return a == "-C" || a == "-p" || a == "--pid" || a == "-u" || a == "-U" || a == "--ppid" || a == "-t"
			})
		case e.Name == "grep" || e.Name == "egrep" || e.Name == "fgrep" || e.Name == "rg" || e.Name == "pgrep" ||
			e.Name == "pidof" || e.Name == "lsof" || e.Name == "fuser" || e.Name == "[" || e.Name == "test" ||
			e.Name == "sed" || e.Name == "head" || e.Name == "tail" || e.Name == "cat":
			return false // a filter, a lookup by name or port, a pid file
		case e.Name == "awk" || e.Name == "gawk" || e.Name == "mawk":
			for _, a := range e.Args {
				if awkFilters(a) {
					return false
				}
			}
		}
	}
	return listed
}

// awkFilters reports whether an awk program or -v value selects lines:
// a pattern, a comparison, a match, a condition ("{print $2}" selects
// nothing).
func awkFilters(p string) bool {
	if strings.HasPrefix(p, "-") {
		return false
	}
	i := strings.IndexByte(p, '{')
	return i != 0 || strings.ContainsAny(p, "=~<>/") || strings.Contains(p, "if") || strings.Contains(p, "match")
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

// patternWords splits a process pattern ("postgres -D /var/lib",
// "/sshd/ {print $2}", "[s]shd") into the words that may name a program.
func patternWords(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("_-.@[]^$/\\:", r))
	})
}
