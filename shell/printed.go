package shell

import "strings"

// This file finds the environment variables a command prints: the
// values that reach its standard output, which the agent reads.

// textRelays pass the text they are given on to their output, whole or
// filtered: a value that goes through them is still printed.
var textRelays = map[string]bool{"echo": true, "printf": true, "printenv": true, "cat": true,
	"tee": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "sort": true, "uniq": true,
	"head": true, "tail": true, "tr": true, "sed": true, "awk": true, "gawk": true, "cut": true,
	"base64": true, "base32": true, "xxd": true, "od": true, "hexdump": true, "rev": true,
	"fold": true, "paste": true, "column": true, "jq": true, "less": true, "more": true,
	"strings": true, "nl": true, "fmt": true, "expand": true, "sponge": true, "stdbuf": true}

// printenvOut adds the variables printenv NAME... prints to its output.
func printenvOut(c *Call, out *stream) {
	for _, w := range c.Positional {
		if w.Known && w.Value != "" && w.Value[0] != '-' {
			out.srcs = append(out.srcs, source{kind: SourceEnv, name: w.Value})
		}
	}
}

// printed records the environment variables in the top-level output when
// the last program that produced it passes text on.
func (a *analyzer) printed(out stream) {
	a.printedDump(out)
	if !out.piped || !textRelays[out.from] && !out.relay {
		return
	}
	for _, s := range out.srcs {
		// x=$(env); echo "$x": the dump, printed through a variable.
		a.eff.EnvDump = a.eff.EnvDump || s.dump
		a.eff.EnvNames = a.eff.EnvNames || s.names
		if s.kind != SourceEnv || contains(a.eff.Printed, s.name) {
			continue
		}
		a.eff.Printed = append(a.eff.Printed, s.name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// declDump reports the declare/export/typeset forms that list every
// variable with its value: no argument, -p, -x.
func declDump(args []string) bool {
	if len(args) > 1 {
		return false
	}
	return len(args) == 0 || oneOfStr(args[0], "-p", "-x", "-px", "-xp")
}

func oneOfStr(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// envDumpOut marks the output of env or printenv with no operand as the
// whole environment, and follows a dump through the stage that reads it:
// grep for one literal name keeps only that name's lines (no longer a
// dump, unless the name is a secret word), cut -d= -f1 and awk -F= print
// $1 keep only the names.
func envDumpOut(c *Call, in *stream, out *stream) {
	if (c.Name == "env" || c.Name == "printenv") && envListing(c) {
		out.envDump = true
		return
	}
	if in == nil || !in.piped || !in.envDump && !in.envNames {
		return
	}
	out.envDump, out.envNames = in.envDump, in.envNames
	switch {
	case !out.envDump:
	case envNameFilter(c):
		out.envDump, out.envNames = false, true
	case literalGrep(c):
		out.envDump = false
	}
}

// envListing reports env or printenv printing the environment: printenv
// with no operand, env with no command (env FOO=1 prints the environment
// with FOO added; -i empties it first).
func envListing(c *Call) bool {
	if c.has("-i", "--ignore-environment", "-", "-S", "--split-string") {
		return false
	}
	if c.Name == "printenv" {
		return len(c.Positional) == 0
	}
	for _, w := range c.Positional {
		if !w.Known || !strings.Contains(w.Value, "=") || strings.HasPrefix(w.Value, "=") {
			return false
		}
	}
	return true
}

// envNameFilter: cut -d= -f1, awk -F= '{print $1}'.
func envNameFilter(c *Call) bool {
	text := ""
	for _, w := range c.Args {
		text += w.Value + " "
	}
	switch c.Name {
	case "cut":
		return strings.Contains(text, "-d=") && (strings.Contains(text, "-f1 ") || strings.Contains(text, "-f 1 "))
	case "awk", "gawk":
		return strings.Contains(text, "=") && strings.Contains(text, "print $1") && !strings.Contains(text, "$2") &&
			!strings.Contains(text, "$0")
	}
	return false
}

// literalGrep reports grep with one pattern that names a variable
// literally (^PATH, NODE_ENV, '^GOROOT'): it prints that variable's
// lines only. A pattern with a secret word (key, token, secret, pass,
// aws, ...) or regular-expression wildcards is still a dump.
func literalGrep(c *Call) bool {
	if c.Name != "grep" && c.Name != "fgrep" && c.Name != "egrep" || len(c.Positional) != 1 {
		return false
	}
	for _, w := range c.Args {
		if w.Known && strings.HasPrefix(w.Value, "-") && strings.ContainsAny(w.Value, "vefEP") && !strings.HasPrefix(w.Value, "--") {
			return false // -v inverts, -e/-f/-E/-P: other patterns
		}
	}
	p := c.Positional[0]
	if !p.Known || p.Value == "" || c.Name == "egrep" {
		return false
	}
	for _, alt := range strings.Split(p.Value, `\|`) {
		if !literalName(alt) {
			return false
		}
	}
	return true
}

// literalName reports one grep alternative that matches a fixed string,
// anchored or not (^PATH=, GOROOT, " ()"), with no secret word in it.
func literalName(alt string) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(alt, "^"), "$"), "=")
	name = strings.TrimPrefix(strings.TrimSuffix(name, `\)`), `\(`)
	if strings.Trim(name, " ") == "" || strings.ContainsAny(name, ".*[]\\?+{}|$^") {
		return false
	}
	u := strings.ToUpper(name)
	for _, w := range envSecretWords {
		if strings.Contains(u, w) {
			return false
		}
	}
	return true
}

// envSecretWords in a grep pattern make a filtered dump a secret search.
var envSecretWords = [...]string{"KEY", "TOKEN", "SECRET", "PASS", "PWD", "CRED", "AUTH", "AWS",
	"API", "PRIVATE", "SESSION", "COOKIE", "DSN", "DATABASE", "DB_", "GITHUB", "OPENAI", "ANTHROPIC",
	"AZURE", "GCP", "GOOGLE", "STRIPE", "SLACK", "NPM", "PYPI", "DOCKER", "VAULT", "SSH", "GPG", "CERT"}

// printedDump records a whole-environment dump or name list in the
// top-level output.
func (a *analyzer) printedDump(out stream) {
	if !out.piped || !textRelays[out.from] && !envListers[out.from] && !out.relay {
		return
	}
	a.eff.EnvDump = a.eff.EnvDump || out.envDump
	a.eff.EnvNames = a.eff.EnvNames || out.envNames
}

// heldDump reports what a captured output holds of the environment, as
// printedDump judges the same output printed: every value (dump) or every
// name (names), when the last program passes the text on.
func heldDump(out stream) (dump, names bool) {
	if !out.piped || !textRelays[out.from] && !envListers[out.from] && out.from != "compgen" && !out.relay {
		return false, false
	}
	return out.envDump, out.envNames
}

// envListers print the environment themselves.
var envListers = map[string]bool{"env": true, "printenv": true, "set": true, "export": true,
	"declare": true, "typeset": true}

// onlyDevNull reports output thrown away: no file but /dev/null.
func onlyDevNull(outs []string) bool {
	for _, o := range outs {
		if o != "/dev/null" {
			return false
		}
	}
	return len(outs) > 0
}

// namesSrc reports a source holding the names of every variable.
func namesSrc(srcs []source) bool {
	for _, s := range srcs {
		if s.names {
			return true
		}
	}
	return false
}
