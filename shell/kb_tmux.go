package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// tmux parses its options itself: its global options come before the
// command, each command has its own options (-s NAME, -t TARGET, -c DIR
// take a value) that end at the first operand, and ";" words separate
// commands. A flag table for the whole line took "tmux new -s w 'cat
// /etc/shadow'" for the command "w cat /etc/shadow".

// tmuxGlobalValue are the global option letters that take a value.
const tmuxGlobalValue = "cfLST"

// tmuxRuns maps the commands whose operands are a command to run to the
// letters of their options that take a value (-c or, for display-popup,
// -d is the start directory).
var tmuxRuns = map[string]string{
	"new-session": "cefFnstxy", "new": "cefFnstxy", "new-window": "ceFnt", "neww": "ceFnt",
	"split-window": "ceFlt", "splitw": "ceFlt", "respawn-pane": "cet", "respawnp": "cet",
	"respawn-window": "cet", "respawnw": "cet", "run-shell": "cdt", "run": "cdt",
	"pipe-pane": "t", "pipep": "t", "display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
}

// tmuxOther gives the valued option letters of the other commands that
// checkTmux judges.
var tmuxOther = map[string]string{
	"send-keys": "cNt", "send": "cNt", "if-shell": "t", "if": "t", "source-file": "t", "source": "t",
}

// checkTmux: global -c runs a shell command and -f reads a configuration
// file; new-session, new-window, split-window, respawn-*, run-shell,
// pipe-pane and display-popup run their operands (one word through the
// shell, several as an argv); if-shell runs its first operand; -c DIR of
// a command starts it there (read); send-keys types into a pane (a code
// escape); source-file reads a file of tmux commands.
func checkTmux(c *Call) {
	args := c.Args
	i := 0
	for ; i < len(args) && tmuxIsOption(args[i]); i++ {
		v := args[i].Value
		if v == "--" {
			i++
			break
		}
		l, val, ok := tmuxOptionValue(args, &i, tmuxGlobalValue)
		if !ok {
			continue
		}
		switch l {
		case 'c':
			c.RunShell(val)
		case 'f':
			c.Use(val, action.AccessRead)
		}
	}
	for n := 0; i < len(args) && n < 16; n++ {
		j := i
		for j < len(args) && !(args[j].Known && args[j].Value == ";") {
			j++
		}
		tmuxCommand(c, args[i:j])
		i = j + 1
	}
}

// tmuxIsOption reports whether w is an option word ("-d", "-ds", "--").
func tmuxIsOption(w Word) bool {
	return w.Known && len(w.Value) > 1 && w.Value[0] == '-'
}

// tmuxOptionValue reads the option word at args[*i]: the letter that
// takes a value among valued, and the value (the rest of the word or the
// next word, advancing *i).
func tmuxOptionValue(args []Word, i *int, valued string) (byte, Word, bool) {
	v := args[*i].Value
	for j := 1; j < len(v); j++ {
		if strings.IndexByte(valued, v[j]) < 0 {
			continue
		}
		if j+1 < len(v) {
			return v[j], Word{Value: v[j+1:], Known: true}, true
		}
		if *i+1 < len(args) {
			*i++
			return v[j], args[*i], true
		}
		return 0, Word{}, false
	}
	return 0, Word{}, false
}

// tmuxCommand judges one tmux command with its words.
func tmuxCommand(c *Call, cmd []Word) {
	if len(cmd) == 0 {
		return
	}
	name := cmd[0]
	if !name.Known {
		c.Tag(TagOpaque, "unresolved tmux command")
		return
	}
	valued, runs := tmuxRuns[name.Value]
	if !runs {
		valued = tmuxOther[name.Value]
	}
	dir := byte('c')
	if name.Value == "display-popup" || name.Value == "popup" {
		dir = 'd'
	}
	i := 1
	for ; i < len(cmd) && tmuxIsOption(cmd[i]); i++ {
		if cmd[i].Value == "--" {
			i++
			break
		}
		l, val, ok := tmuxOptionValue(cmd, &i, valued)
		if ok && runs && l == dir {
			c.Use(val, action.AccessRead) // the start directory
		}
	}
	rest := cmd[i:]
	switch {
	case runs && len(rest) == 1:
		c.RunShell(rest[0])
	case runs && len(rest) > 1:
		c.Run(rest)
	case (name.Value == "if-shell" || name.Value == "if") && len(rest) > 0:
		c.RunShell(rest[0])
	case (name.Value == "send-keys" || name.Value == "send") && len(rest) > 0:
		c.Tag(TagCodeEscape, "tmux send-keys")
	case (name.Value == "source-file" || name.Value == "source") && len(rest) > 0:
		for _, w := range rest {
			c.Use(w, action.AccessRead)
		}
	}
}
