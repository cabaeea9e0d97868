package shell

import (
	"regexp"
	"strings"
)

// This file reads the selection and the search of grep and rg from their
// words: every --include/--exclude/--exclude-dir (the flag table keeps
// one value per flag), rg's -g globs and hidden-file rule, and the
// pattern, translated into an RE2 the gate can test. What it cannot read
// widens the selection (an unknown filter value filters nothing) or
// leaves the search unknown.

// grepArgs is what grepScan found in a grep or rg call.
type grepArgs struct {
	sel      Selection
	pats     []string
	patsOK   bool // every pattern is known
	patFile  bool // -f: patterns from a file
	mode     byte // 'B' BRE, 'E' ERE, 'F' fixed, 'P' PCRE / Rust regex
	fold     bool
	invert   bool
	nullData bool
	uCount   int
}

// The short options of grep and of rg that take a value.
const (
	grepValueShorts = "efmABCdD"
	rgValueShorts   = "efmABCdgtTMrjE"
)

// grepSelection is the Selection of a recursive grep or rg call.
func grepSelection(c *Call) *Selection {
	g := grepScan(c)
	s := g.sel
	if t := g.search(c); t != nil {
		s.search = t
	}
	return &s
}

// grepSearch is the search of a grep-like consumer of a set (find -exec
// grep PAT {} +, xargs grep): nil for any other program.
func grepSearch(c *Call) *searchTest {
	if c == nil {
		return nil // a redirect: the shell reads or writes the file whole
	}
	switch c.Name {
	case "grep", "egrep", "fgrep", "rgrep", "rg":
		g := grepScan(c)
		return g.search(c)
	}
	return nil
}

func grepScan(c *Call) *grepArgs {
	g := &grepArgs{sel: Selection{grep: true, target: -1, maxDepth: -1}, patsOK: true, mode: 'B'}
	switch c.Name {
	case "egrep":
		g.mode = 'E'
	case "fgrep":
		g.mode = 'F'
	case "rg":
		g.mode, g.sel.noHidden = 'P', true
	}
	args := c.Args
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Known {
			continue
		}
		v := w.Value
		if v == "--" {
			break
		}
		next := func() (Word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return Word{}, false
		}
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v, "=")
			vw := Word{Value: val, Known: true}
			if !eq && longTakesValue(name) {
				vw, _ = next()
			}
			g.long(name, vw)
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			continue
		}
		shorts := grepValueShorts
		if c.Name == "rg" {
			shorts = rgValueShorts
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			if strings.IndexByte(shorts, ch) < 0 {
				g.short(ch, c.Name == "rg")
				continue
			}
			vw := Word{Value: v[j+1:], Known: true}
			if j+1 == len(v) {
				vw, _ = next()
			}
			g.shortValue(ch, vw, c.Name == "rg")
			break
		}
	}
	if g.uCount >= 2 {
		g.sel.noHidden = false
	}
	return g
}

func longTakesValue(name string) bool {
	switch name {
	case "--include", "--exclude", "--exclude-dir", "--glob", "--iglob", "--regexp", "--file",
		"--max-count", "--after-context", "--before-context", "--context", "--directories",
		"--devices", "--type", "--type-not", "--binary-files", "--label", "--color", "--colour",
		"--max-depth", "--threads", "--encoding", "--replace", "--max-filesize", "--sort", "--sortr":
		return true
	}
	return false
}

func (g *grepArgs) long(name string, w Word) {
	switch name {
	case "--include", "--exclude", "--exclude-dir", "--glob", "--iglob":
		if !w.Known {
			return // an unknown filter filters nothing
		}
		switch name {
		case "--include":
			g.sel.include = append(g.sel.include, w.Value)
		case "--exclude":
			g.sel.exclude = append(g.sel.exclude, w.Value)
		case "--exclude-dir":
			g.sel.excludeDir = append(g.sel.excludeDir, w.Value)
		case "--iglob":
			if !strings.HasPrefix(w.Value, "!") {
				return // a case-folded inclusion: not modelled, filters nothing
			}
			fallthrough
		default:
			g.sel.globs = append(g.sel.globs, w.Value)
		}
	case "--regexp":
		g.pattern(w)
	case "--file":
		g.patFile = true
	case "--fixed-strings":
		g.mode = 'F'
	case "--extended-regexp":
		g.mode = 'E'
	case "--basic-regexp":
		g.mode = 'B'
	case "--perl-regexp", "--pcre2":
		g.mode = 'P'
	case "--ignore-case", "--smart-case":
		g.fold = true
	case "--invert-match":
		g.invert = true
	case "--null-data":
		g.nullData = true
	case "--hidden":
		g.sel.noHidden = false
	case "--unrestricted":
		g.uCount++
	}
}

func (g *grepArgs) short(ch byte, rg bool) {
	switch ch {
	case 'F':
		g.mode = 'F'
	case 'E':
		g.mode = 'E'
	case 'G':
		g.mode = 'B'
	case 'P':
		g.mode = 'P'
	case 'i', 'y', 'S':
		g.fold = true
	case 'v':
		g.invert = true
	case 'z':
		g.nullData = !rg || g.nullData
	case '.':
		g.sel.noHidden = false
	case 'u':
		g.uCount++
	}
}

func (g *grepArgs) shortValue(ch byte, w Word, rg bool) {
	switch {
	case ch == 'e':
		g.pattern(w)
	case ch == 'f':
		g.patFile = true
	case ch == 'g' && rg:
		if w.Known {
			g.sel.globs = append(g.sel.globs, w.Value)
		}
	}
}

func (g *grepArgs) pattern(w Word) {
	if !w.Known {
		g.patsOK = false
		return
	}
	g.pats = append(g.pats, w.Value)
}

// search builds the test of the call's patterns (the first positional
// when no -e gave one); nil when it cannot be built.
func (g *grepArgs) search(c *Call) *searchTest {
	if g.patFile || !g.patsOK || g.nullData {
		return nil
	}
	pats := g.pats
	if len(pats) == 0 {
		if len(c.Positional) == 0 || !c.Positional[0].Known {
			return nil
		}
		pats = []string{c.Positional[0].Value}
	}
	var alts []string
	for _, p := range pats {
		for _, line := range strings.Split(p, "\n") {
			re, ok := toRE2(line, g.mode)
			if !ok {
				return nil
			}
			alts = append(alts, "(?:"+re+")")
		}
	}
	expr := strings.Join(alts, "|")
	if g.fold {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	// -w and -x only narrow what matches: left out, the test is a
	// superset. -c, -l, -q still tell whether a line matches.
	return &searchTest{re: re, invert: g.invert}
}

// toRE2 translates a grep pattern into RE2 syntax matching at least what
// grep matches; ok is false for what it cannot translate (back
// references, an escape it does not know).
func toRE2(p string, mode byte) (string, bool) {
	switch mode {
	case 'F':
		return regexp.QuoteMeta(p), true
	case 'P':
		if _, err := regexp.Compile(p); err != nil {
			return "", false
		}
		return p, true
	}
	var b strings.Builder
	start := true // where a BRE "*" is literal and "^" an anchor
	for i := 0; i < len(p); i++ {
		c := p[i]
		wasStart := start
		start = false
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", false
			}
			i++
			e := p[i]
			switch {
			case e >= '1' && e <= '9':
				return "", false // a back reference
			case e == '<' || e == '>':
				b.WriteString(`\b`)
			case strings.IndexByte("bBwWsS", e) >= 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case mode == 'B' && strings.IndexByte("(){}|+?", e) >= 0:
				b.WriteByte(e)
				start = e == '(' || e == '|'
			case (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'):
				return "", false
			default:
				b.WriteString(regexp.QuoteMeta(string(e)))
			}
		case c == '[':
			end := bracketEnd(p, i)
			if end < 0 {
				return "", false
			}
			b.WriteString(strings.ReplaceAll(p[i:end+1], `\`, `\\`))
			i = end
		case mode == 'B' && strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteString(regexp.QuoteMeta(string(c)))
		case c == '*' && wasStart:
			b.WriteString(`\*`)
		case c == '^' && !wasStart:
			b.WriteString(`\^`)
		case c == '$' && mode == 'B' && i+1 < len(p) && !(p[i+1] == '\\' && i+2 < len(p) && (p[i+2] == ')' || p[i+2] == '|')):
			b.WriteString(`\$`)
		default:
			b.WriteByte(c)
			start = c == '^' && wasStart || mode == 'E' && (c == '(' || c == '|')
		}
	}
	return b.String(), true
}

// bracketEnd returns the index of the "]" closing the bracket expression
// at i ("[]…]", "[^]…]" and "[:class:]" included), or -1.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '.' || p[j+1] == '='):
			k := strings.Index(p[j+2:], string(p[j+1])+"]")
			if k < 0 {
				return -1
			}
			j += k + 3
		case p[j] == ']':
			return j
		}
	}
	return -1
}
