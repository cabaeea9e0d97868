package shell

import (
	"strings"

	"github.com/parallax/parallax/action"
)

// screen parses its options itself: -d, -D, -r, -R and -x take an
// optional session name (the next word, unless it is an option), which a
// flag table cannot say; after the options, the rest is the command a new
// window runs or, with -X, the screen command sent to a session.

// screenValue are the screen options that take the next word as value.
const screenValue = "cehpSsTt"

// screenSessionLetters select an existing session and may take its name.
const screenSessionLetters = "dDrRx"

// screenSafeX are -X commands that only rename, select, resize, detach or
// end the user's own session and its windows: they run nothing and
// touch no file. Others (stuff, exec, screen, eval, source, hardcopy,
// log, bind, chdir, setenv, ...) type input, run programs or write files.
var screenSafeX = map[string]bool{
	"title": true, "sessionname": true, "detach": true, "quit": true, "kill": true, "select": true,
	"windows": true, "info": true, "version": true, "width": true, "height": true, "caption": true,
	"hardstatus": true, "defscrollback": true, "scrollback": true, "msgwait": true, "number": true,
	"clear": true, "redisplay": true, "other": true, "next": true, "prev": true,
}

// screenOpts is what checkScreen read from screen's options.
type screenOpts struct {
	hasX    bool // -X: the words after the options are a screen command
	session bool // a session letter ended the last option word
}

// checkScreen: "screen [options] [CMD [ARGS]]" runs CMD in a new window;
// -X CMD sends a screen command to a session; -c reads a configuration
// file; -Logfile writes the log; -s names the shell new windows run.
func checkScreen(c *Call) {
	args := c.Args
	var o screenOpts
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if o.session && !(w.Known && strings.HasPrefix(w.Value, "-")) {
			o.session = false
			if !w.Known {
				c.Tag(TagOpaque, "unresolved screen session")
			}
			continue // the session's name
		}
		if !w.Known || len(w.Value) < 2 || w.Value[0] != '-' {
			break
		}
		if w.Value == "--" {
			i++
			break
		}
		i = screenOption(c, args, i, &o)
	}
	rest := args[i:]
	switch {
	case o.hasX && len(rest) > 0:
		screenX(c, rest[0], rest[1:])
	case len(rest) > 0:
		c.Run(rest)
	}
}

// screenOption reads the option word at args[i] and returns the index
// of the last word it used.
func screenOption(c *Call, args []Word, i int, o *screenOpts) int {
	v := args[i].Value
	o.session = false
	next := func() (Word, bool) {
		if i+1 < len(args) {
			i++
			return args[i], true
		}
		return Word{}, false
	}
	switch v {
	case "-ls", "-list", "-wipe":
		if i+1 < len(args) && !strings.HasPrefix(args[i+1].Value, "-") {
			i++ // a name to match
		}
		return i
	case "-Logfile":
		if w, ok := next(); ok {
			c.Use(w, action.AccessWrite)
		}
		return i
	case "-fn", "-fa", "-ln", "-RR":
		return i
	}
	for j := 1; j < len(v); j++ {
		l := v[j]
		if l == 'X' {
			o.hasX = true
		}
		if strings.IndexByte(screenValue, l) < 0 {
			o.session = strings.IndexByte(screenSessionLetters, l) >= 0
			continue
		}
		o.session = false
		val := Word{Value: v[j+1:], Known: true}
		if j+1 == len(v) {
			w, ok := next()
			if !ok {
				return i
			}
			val = w
		}
		screenValueOf(c, l, val)
		return i
	}
	return i
}

// screenValueOf applies the value of the option letter l.
func screenValueOf(c *Call, l byte, val Word) {
	switch l {
	case 'c':
		c.Use(val, action.AccessRead)
	case 's':
		c.Run([]Word{val})
	}
}

// screenX judges a -X command sent to a session.
func screenX(c *Call, x Word, args []Word) {
	if x.Known && screenSafeX[x.Value] {
		return
	}
	c.Tag(TagCodeEscape, "screen -X")
	if x.Known && x.Value == "stuff" && len(args) > 0 {
		// stuff types its text into the session's shell.
		w := args[0]
		w.Value = strings.NewReplacer(`\n`, "\n", `\r`, "\n", "^M", "\n").Replace(w.Value)
		c.RunShell(w)
	}
}
