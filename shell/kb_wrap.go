package shell

import "strings"

// Wrappers: programs whose operands are another command (env, nohup,
// timeout, xargs, watch, strace, ...). The nested command is analysed one
// level deeper through Call.Run or Call.RunShell.

// kbWrapTable builds the kbWrap table. It runs once, on the first lookup, not at
// package initialisation (programs).
func kbWrapTable() map[string]*Program {
	var kbWrap = map[string]*Program{
		"env": {Flags: flags(shorts("i0v")+" --ignore-environment --null --debug -", fBool,
			"-u --unset --block-signal --default-signal --ignore-signal", fVal, "-C --chdir", fDir,
			"-S --split-string", fVal), OptionsFirst: true, Check: checkEnv}, // env sh -c CODE: -c is sh's
		"nohup":        {Args: []Role{RoleCommand}},
		"setsid":       {Flags: flags(shorts("cfw")+" --ctty --fork --wait", fBool), Args: []Role{RoleCommand}},
		"timeout":      {Flags: flags("--preserve-status --foreground -v --verbose", fBool, "-s --signal -k --kill-after", fVal), Args: []Role{RoleNone, RoleCommand}},
		"gtimeout":     {Flags: flags("--preserve-status --foreground", fBool, "-s --signal -k --kill-after", fVal), Args: []Role{RoleNone, RoleCommand}},
		"ionice":       {Flags: flags(shorts("tu"), fBool, "-c --class -n --classdata -p --pid -P -u", fVal), Args: []Role{RoleCommand}},
		"chrt":         {Flags: flags(shorts("abdefiorpmvR"), fBool, "-T -P -D", fVal), Args: []Role{RoleNone, RoleCommand}},
		"taskset":      {Flags: flags(shorts("acp")+" --all-tasks --cpu-list --pid", fBool), Args: []Role{RoleNone, RoleCommand}},
		"numactl":      {Flags: flags("-N --cpunodebind -m --membind -C --physcpubind -i --interleave -p --preferred", fVal, "-H --hardware -s --show", fBool), Args: []Role{RoleCommand}},
		"stdbuf":       {Flags: flags("-i --input -o --output -e --error", fVal), Args: []Role{RoleCommand}},
		"unbuffer":     {Flags: flags("-p", fBool), Args: []Role{RoleCommand}},
		"rlwrap":       {Args: []Role{RoleCommand}},
		"time":         {Flags: flags(shorts("pvqa")+" --portability --verbose --quiet --append", fBool, "-f --format", fVal, "-o --output", fWrite), Args: []Role{RoleCommand}},
		"timex":        {Args: []Role{RoleCommand}},
		"caffeinate":   {Flags: flags(shorts("dimsu"), fBool, "-t -w", fVal), Args: []Role{RoleCommand}},
		"nocache":      {Args: []Role{RoleCommand}},
		"eatmydata":    {Args: []Role{RoleCommand}},
		"fakeroot":     {Args: []Role{RoleCommand}},
		"faketime":     {Args: []Role{RoleNone, RoleCommand}},
		"cpulimit":     {Flags: flags("-l --limit -p --pid -e --exe", fVal, "-z -k -r -v", fBool), Args: []Role{RoleCommand}},
		"catchsegv":    {Args: []Role{RoleCommand}},
		"xvfb-run":     {Flags: flags("-a --auto-servernum", fBool, "-n -s -w -e", fVal), Args: []Role{RoleCommand}},
		"dbus-launch":  {Flags: flags("--exit-with-session --sh-syntax", fBool), Args: []Role{RoleCommand}},
		"proxychains":  {Flags: flags("-q", fBool, "-f", fRead), Args: []Role{RoleCommand}, Network: true},
		"proxychains4": {Flags: flags("-q", fBool, "-f", fRead), Args: []Role{RoleCommand}, Network: true},
		"torsocks":     {Args: []Role{RoleCommand}, Network: true},
		"torify":       {Args: []Role{RoleCommand}, Network: true},
		"firejail":     {Flags: flags("--noprofile --quiet --private --seccomp", fBool, "--profile --whitelist --blacklist --net", fVal), Args: []Role{RoleCommand}},
		"entr":         {Flags: flags(shorts("acdnprsz"), fBool), Args: []Role{RoleCommand}},
		"tsp":          {Args: []Role{RoleCommand}},
		"flock": {Flags: flags(shorts("sxunoFwE")+" --shared --exclusive --unlock --nonblock --close --no-fork", fBool,
			"-w --timeout -E --conflict-exit-code", fVal, "-c --command", fShell), Args: []Role{RoleWrite, RoleCommand}},
		"watch": {Flags: flags(shorts("bcdeftgpx")+" --beep --color --differences --errexit --no-title --chgexit --precise --exec", fBool,
			"-n --interval -q --equexit", fVal), Check: checkWatch},
		"xargs": {Flags: flags(shorts("0ortpx")+" --null --no-run-if-empty --verbose --interactive --exit --open-tty", fBool,
			"-I -n --max-args -L --max-lines -P --max-procs -d --delimiter -E -s --max-chars --process-slot-var", fVal,
			"-a --arg-file", fRead, "-i --replace -e --eof -l", fBool), OptionsFirst: true, Check: checkXargs},
		"parallel": {Flags: flags(shorts("0kqvXu")+" --null --keep-order --quote --verbose --dry-run --ungroup --progress --bar --eta --pipe --line-buffer --halt-on-error", fBool,
			"-j --jobs -P -n -N -I -S --sshlogin --delay --timeout --colsep -d --delimiter --joblog --results --tmpdir --block --retries --halt", fVal,
			"-a --arg-file", fRead), OptionsFirst: true, Check: checkParallel},
		"strace": {Flags: flags(shorts("cfFhiqrtTvVwxyzCkDZ")+" -ff -tt -ttt -yy", fBool, "-e -p -s -u -a -b -E -I -O -P -S -X --trace --signal", fVal, "-o --output", fWrite),
			Args: []Role{RoleCommand}},
		"ltrace": {Flags: flags(shorts("bcCfhiLrStTV"), fBool, "-a -A -D -e -F -l -n -p -s -u -w -x", fVal, "-o --output", fWrite), Args: []Role{RoleCommand}},
		"script": {Flags: flags(shorts("aefqtk")+" --append --return --flush --force --quiet", fBool, "-c --command", fShell,
			"-t --timing -I --log-in -O --log-out -B --log-io -T --log-timing -m --logging-format -E --echo", fVal),
			Args: []Role{RoleWrite}},
		"ssh-agent-wrapper": {Args: []Role{RoleCommand}},
		"run-parts":         {Flags: flags("--test --list --report --reverse --exit-on-error -v --verbose", fBool, "--regex -u --umask -a --arg", fVal), Args: []Role{RoleRead}, Tags: []TagKind{TagCodeEscape}},
	}
	return kbWrap
}

// checkEnv skips NAME=value operands and runs the command after them;
// -S splits a string into a command line.
func checkEnv(c *Call) {
	if w, ok := c.Flag("-S", "--split-string"); ok {
		c.RunShell(w)
		return
	}
	if _, ok := c.Flag("-i", "--ignore-environment", "-u", "--unset", "-"); ok {
		c.an.tmpEnv = true // TMPDIR may be gone (tempname.go)
	}
	for i, w := range c.Positional {
		if name, _, ok := strings.Cut(w.Value, "="); ok && name != "" {
			c.an.envAssigned(name)
		}
		if w.Known && strings.Contains(w.Value, "=") && !strings.HasPrefix(w.Value, "=") {
			continue
		}
		c.Run(c.Positional[i:])
		return
	}
}

// checkWatch joins its operands into a shell command (or runs them with -x).
func checkWatch(c *Call) {
	if len(c.Positional) == 0 {
		return
	}
	if _, ok := c.Flag("-x", "--exec"); ok {
		c.Run(c.Positional)
		return
	}
	c.RunShell(joinWords(c.Positional))
}

// checkXargs runs the command with the input items in place of the -I
// string. (The core's Call.Run appends one word known only at run time
// for the items xargs adds at the end.)
func checkXargs(c *Call) {
	argv := c.Positional
	if len(argv) == 0 {
		argv = []Word{lit("echo")}
	}
	if w, ok := c.Flag("-I"); ok && w.Value != "" {
		c.Run(replaceBraces(argv, w.Value, ""))
		return
	}
	if _, ok := c.Flag("-i", "--replace"); ok {
		c.Run(replaceBraces(argv, "{}", ""))
		return
	}
	c.Run(argv)
}

// checkParallel: "parallel CMD ::: ARGS" runs CMD as shell code with each
// argument; without ":::" the items come from stdin.
func checkParallel(c *Call) {
	var cmd []Word
	for _, w := range c.Positional {
		if w.Value == ":::" || w.Value == "::::" || w.Value == ":::+" {
			break
		}
		cmd = append(cmd, w)
	}
	if len(cmd) > 0 {
		c.RunShell(joinWords(cmd))
	}
}
