package shell

import "strings"

// This file gives unknown output a shape: a token (what $(uname -r)
// prints is one path segment at most) or a list of paths from known sets
// (what find, ls and grep -l print). Shapes let paths built from command
// output be judged as globs instead of opaque values.

// tokKind is the shape of a command's output when it is a token.
type tokKind uint8

const (
	tokNone tokKind = iota
	// tokOne: one token, never empty, without "/" or blanks, never "."
	// or "..", not starting with a dot.
	tokOne
	// tokMaybeEmpty: like tokOne, but may be empty (the command may fail).
	tokMaybeEmpty
	// tokMany: tokens separated by blanks or newlines (possibly none).
	tokMany
)

// varSet reports whether the command assigned name (PATH, IFS).
func (a *analyzer) varSet(name string) bool {
	for i := range a.vars {
		if a.vars[i].name == name {
			return true
		}
	}
	return false
}

// shape sets the shape of a known program's unknown output.
func (a *analyzer) shape(c *Call, in *stream, out *stream) {
	if out.known {
		return
	}
	if c.Name == "pwd" && c.Cwd != "" && len(c.Positional) == 0 && !a.varSet("PATH") {
		out.text, out.known = c.Cwd+"\n", true
		return
	}
	if (c.Name == "mktemp" || c.Name == "tempfile") && a.tempName(c, out) {
		return // tempname.go
	}
	if c.Name == "which" && len(c.Positional) == 1 && onlyFlags(c, "-s") {
		if w := c.Positional[0]; w.Known && w.Value != "" && !strings.ContainsAny(w.Value, "/*?[\\") {
			out.prog = w.Value
			return
		}
	}
	if tok := a.token(c); tok != tokNone {
		out.tok = tok
		return
	}
	if c.Name == "find" || c.Name == "gfind" {
		out.findCall = c // described on demand (streamItems)
		return
	}
	out.items, out.single = a.items(c, in)
	if out.items == nil {
		out.items, out.single = a.moreItems(c, in)
	}
}

// token reports whether the call prints a token. A program found
// through a changed PATH may print anything: no token then.
func (a *analyzer) token(c *Call) tokKind {
	if c.Name == "" || a.varSet("PATH") {
		return tokNone
	}
	switch c.Name {
	case "whoami", "arch", "nproc", "logname":
		if len(c.Positional) == 0 {
			return tokOne
		}
	case "uname":
		return unameTok(c)
	case "hostname":
		return hostnameTok(c)
	case "id":
		return idTok(c)
	case "date":
		return dateTok(c)
	case "wc":
		return wcTok(c)
	case "seq":
		if _, ok := c.Flag("-f", "--format", "-s", "--separator"); !ok {
			return tokMany
		}
	case "expr":
		return exprTok(c)
	case "git":
		return gitTok(c)
	}
	return tokNone
}

// onlyFlags reports whether every flag given is one of names.
func onlyFlags(c *Call, names string) bool {
	for f := range c.Flags {
		if !isCluster(f) && !hasField(names, f) {
			return false
		}
	}
	return true
}

// isCluster reports whether a recorded flag is a cluster of short flags
// ("-rf"); its letters are recorded one by one as well.
func isCluster(f string) bool { return len(f) > 2 && f[1] != '-' }

// hasField reports whether s holds f as a space-separated field.
func hasField(s, f string) bool {
	for s != "" {
		var x string
		x, s, _ = strings.Cut(s, " ")
		if x == f {
			return true
		}
	}
	return false
}

func unameTok(c *Call) tokKind {
	if len(c.Positional) > 0 || !onlyFlags(c, "-r -m -s -n -p -i --kernel-release --machine --kernel-name --nodename --processor --hardware-platform") {
		return tokNone
	}
	n := 0
	for f := range c.Flags {
		if len(f) == 2 || strings.HasPrefix(f, "--") {
			n++
		}
	}
	if n > 1 {
		return tokMany
	}
	return tokOne
}

func hostnameTok(c *Call) tokKind {
	if len(c.Positional) > 0 {
		return tokNone
	}
	switch {
	case onlyFlags(c, "-s --short -f --fqdn --long"):
		return tokOne
	case onlyFlags(c, "-I -i --all-ip-addresses --ip-address"):
		return tokMany
	}
	return tokNone
}

func idTok(c *Call) tokKind {
	if len(c.Positional) > 1 {
		return tokNone
	}
	k := tokOne
	if len(c.Positional) == 1 {
		k = tokMaybeEmpty // the user may not exist
	}
	_, u := c.Flag("-u", "--user")
	_, g := c.Flag("-g", "--group")
	_, gs := c.Flag("-G", "--groups")
	switch {
	case !onlyFlags(c, "-u -g -G -n -r --user --group --groups --name --real"):
		return tokNone
	case gs && !u && !g:
		return tokMany
	case u != g && !gs:
		return k
	}
	return tokNone
}

// dateTok accepts formats whose every conversion prints digits or
// letters and whose literal text holds no "/" and does not start with
// a dot; blanks make it several tokens.
func dateTok(c *Call) tokKind {
	if _, ok := c.Flag("-s", "--set", "-f", "--file"); ok {
		return tokNone
	}
	if !onlyFlags(c, "-u --utc --universal -R --rfc-2822 -I --iso-8601 --rfc-3339 -d --date -r --reference") {
		return tokNone
	}
	k := tokOne
	if _, ok := c.Flag("-d", "--date", "-r", "--reference"); ok {
		k = tokMaybeEmpty // a bad date or a missing file prints nothing
	}
	if _, ok := c.Flag("--rfc-3339"); ok {
		k = tokMany
	}
	if len(c.Positional) == 0 {
		if _, ok := c.Flag("-R", "--rfc-2822", "-I", "--iso-8601", "--rfc-3339"); ok {
			return k
		}
		return tokMany // "Thu Feb  1 12:00:00 UTC 2024"
	}
	if len(c.Positional) > 1 || !c.Positional[0].Known {
		return tokNone
	}
	f := c.Positional[0].Value
	if len(f) < 2 || f[0] != '+' || f[1] == '.' {
		return tokNone
	}
	blank, conv := false, false
	for i := 1; i < len(f); i++ {
		ch := f[i]
		if ch != '%' {
			switch ch {
			case '/':
				return tokNone
			case ' ', '\t', '\n':
				blank = true
			}
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("-_0^#EO123456789", f[i]) >= 0 {
			if f[i] == '_' {
				blank = true
			}
			i++
		}
		if i >= len(f) {
			return tokNone
		}
		switch f[i] {
		case 'Y', 'm', 'd', 'H', 'M', 'S', 's', 'j', 'y', 'I', 'u', 'w', 'U', 'V', 'W', 'G', 'g', 'C',
			'N', 'F', 'T', 'R', 'a', 'A', 'b', 'B', 'h', 'p', 'P', 'z', 'q':
			conv = true
		case 'e', 'k', 'l':
			conv, blank = true, true // space padded
		case 'n', 't':
			blank = true
		case '%':
		default:
			return tokNone // %D, %x, %c may print "/"; %Z may be empty
		}
	}
	if !conv {
		return tokNone
	}
	if blank {
		return tokMany
	}
	return k
}

// wcTok: one count of standard input is one number.
func wcTok(c *Call) tokKind {
	if len(c.Positional) > 0 {
		return tokNone
	}
	n := 0
	for f := range c.Flags {
		switch f {
		case "-l", "-c", "-w", "-m", "-L", "--lines", "--bytes", "--words", "--chars", "--max-line-length":
			n++
		default:
			if len(f) == 2 || strings.HasPrefix(f, "--") {
				return tokNone
			}
		}
	}
	if n == 1 {
		return tokOne
	}
	return tokMany
}

// exprTok: integer arithmetic and comparisons print a number (nothing
// when an operand is not a number).
func exprTok(c *Call) tokKind {
	args := c.Args
	if len(args) < 3 || len(args)%2 == 0 {
		return tokNone
	}
	for i, w := range args {
		if i%2 == 0 {
			if w.Known && !isInt(w.Value) {
				return tokNone
			}
			continue
		}
		if !w.Known {
			return tokNone
		}
		switch w.Value {
		case "+", "-", "*", "/", "%", "<", "<=", "=", "==", "!=", ">=", ">":
		default:
			return tokNone
		}
	}
	return tokMaybeEmpty
}

func isInt(s string) bool {
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	return isDigits(s)
}

// gitTok: git rev-parse [--short|--verify] REV prints a hash (nothing
// outside a repository). Branch names (--abbrev-ref) may hold "/".
func gitTok(c *Call) tokKind {
	args := c.Args
	if len(args) < 2 || !args[0].Known || args[0].Value != "rev-parse" {
		return tokNone
	}
	revs := 0
	for _, w := range args[1:] {
		switch {
		case !w.Known:
			return tokNone
		case w.Value == "--short" || strings.HasPrefix(w.Value, "--short=") || w.Value == "--verify" ||
			w.Value == "-q" || w.Value == "--quiet":
		case strings.HasPrefix(w.Value, "-"):
			return tokNone
		default:
			revs++
		}
	}
	if revs == 1 {
		return tokMaybeEmpty
	}
	return tokNone
}
