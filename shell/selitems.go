package shell

import (
	"regexp"
	"strings"
)

// This file gives the output of a listing command (grep -l/-L, rg -l and
// rg --files, fd, git ls-files with pathspecs) the Selection of what it
// lists, so that a consumer fed on that list (xargs, $(…), while read,
// for) is judged by the files the listing can print, not by the whole
// tree below its roots. A listing prints names only: the selection its
// items carry has no search (what the consumer shows of a file is the
// consumer's, see useSet). Its content filter (grep -l PAT prints only
// the files that match) is left out on purpose: the gate's own records
// change between the judgement and the run (the audit chain records the
// command itself), so a name that does not match now may match then.

// listSelection is the selection of what grep or rg lists: its file
// filters, without its search.
func listSelection(c *Call) *Selection {
	s := grepScan(c).sel
	return &s
}

// listName is the one name pattern every file a listing prints matches
// (grep's single --include, rg's single positive -g without "/"), for the
// set's pattern; "" when there is none or several.
func listName(s *Selection) string {
	var name string
	n := 0
	for _, p := range s.include {
		name, n = p, n+1
	}
	for _, g := range s.globs {
		if !strings.HasPrefix(g, "!") {
			name, n = g, n+1
		}
	}
	if n != 1 || name == "" || strings.ContainsAny(name, "/!{\\") {
		return ""
	}
	return name
}

// rgItems: rg -l (--files-with-matches, --files-without-match) and rg
// --files print the files below their operands ("." when there is none)
// that rg's filters select.
func rgItems(c *Call) []Word {
	_, files := c.Flag("--files")
	_, l := c.Flag("-l", "--files-with-matches", "--files-without-match")
	if !files && !l {
		return nil
	}
	for _, f := range [...]string{"-c", "--count", "--count-matches", "--json", "--vimgrep", "-o", "--only-matching", "--pre", "-r", "--replace"} {
		if _, ok := c.Flag(f); ok {
			return nil
		}
	}
	ops := c.Positional
	_, e := c.Flag("-e", "--regexp", "-f", "--file")
	if !files && !e && len(ops) > 0 {
		ops = ops[1:]
	}
	sel := listSelection(c)
	return treeItems(ops, sel, listName(sel))
}

// treeItems is one recursive set per operand ("." when there is none),
// narrowed by sel and by a name pattern all its files match.
func treeItems(ops []Word, sel *Selection, name string) []Word {
	if len(ops) > maxItemSets {
		return nil
	}
	if len(ops) == 0 {
		ops = []Word{lit(".")}
	}
	out := make([]Word, 0, len(ops))
	for _, w := range ops {
		p, ok := wordPat(w)
		if !ok {
			return nil
		}
		set := setWord(treePat(p, name), true)
		set.sel = sel
		out = append(out, set)
	}
	return out
}

// fdItems: fd [PATTERN] [PATH…] prints the files and directories below
// its paths whose name matches; -x/-X and --list-details print other
// things.
func fdItems(c *Call) []Word {
	for _, f := range [...]string{"-x", "--exec", "-X", "--exec-batch", "-l", "--list-details"} {
		if _, ok := c.Flag(f); ok {
			return nil
		}
	}
	sel, ok := fdSelection(c)
	if !ok {
		return nil
	}
	var ops []Word
	if len(c.Positional) > 1 {
		ops = c.Positional[1:]
	}
	return treeItems(ops, sel, fdName(sel))
}

// fdSelection reads fd's filters: hidden names (skipped without -H or
// -u), -E exclusions, -e extensions and the pattern (an RE2 compared
// without case against the name; -g a glob; -F a fixed string). A
// pattern it cannot read, or one against the full path (-p), filters
// nothing. ok is false when an argument is not known.
func fdSelection(c *Call) (*Selection, bool) {
	s := &Selection{fd: true, noHidden: true, target: -1, maxDepth: -1}
	mode := 'r'
	args := c.Args
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Known {
			return nil, false
		}
		v := w.Value
		if v == "--" || v == "" || v[0] != '-' {
			continue
		}
		val := func() (string, bool) {
			if name, val, eq := strings.Cut(v, "="); eq && strings.HasPrefix(name, "--") {
				return val, true
			}
			if len(v) > 2 && v[1] != '-' {
				return v[2:], true
			}
			if i+1 < len(args) && args[i+1].Known {
				i++
				return args[i].Value, true
			}
			return "", false
		}
		name, _, _ := strings.Cut(v, "=")
		if len(name) > 2 && name[1] != '-' {
			name = name[:2]
		}
		switch name {
		case "-H", "--hidden", "-u", "--unrestricted":
			s.noHidden = false
		case "-g", "--glob":
			mode = 'g'
		case "-F", "--fixed-strings":
			mode = 'F'
		case "-p", "--full-path":
			mode = 'p'
		case "-e", "--extension", "-E", "--exclude":
			x, ok := val()
			if !ok {
				return nil, false
			}
			if name == "-e" || name == "--extension" {
				s.exts = append(s.exts, strings.ToLower(strings.TrimPrefix(x, ".")))
			} else {
				s.exclude = append(s.exclude, x)
			}
		case "-d", "--max-depth", "--min-depth", "-t", "--type", "-S", "--size", "--changed-within",
			"--changed-before", "-o", "--owner", "-j", "--threads", "--color", "-c":
			if _, ok := val(); !ok {
				return nil, false
			}
		}
	}
	if w, ok := pos(c, 0); ok && w.Known && w.Value != "" {
		s.nameRe = fdPattern(w.Value, byte(mode))
	}
	return s, true
}

// fdPattern translates fd's pattern into an RE2 on the name compared
// without case (a superset of fd's smart case); nil: not understood.
func fdPattern(p string, mode byte) *regexp.Regexp {
	var expr string
	switch mode {
	case 'p':
		return nil
	case 'F':
		expr = regexp.QuoteMeta(p)
	case 'g':
		re, err := wildRegexp(p, true)
		if err != nil || strings.Contains(p, "/") {
			return nil
		}
		return re
	default:
		expr = p
	}
	re, err := regexp.Compile("(?i)" + expr)
	if err != nil {
		return nil
	}
	return re
}

// fdReach reports whether fd prints the entry named base.
func (s *Selection) fdReach(base string) bool {
	if anyGlob(s.exclude, base) {
		return false
	}
	if s.nameRe != nil && !s.nameRe.MatchString(base) {
		return false
	}
	if len(s.exts) == 0 {
		return true
	}
	lb := strings.ToLower(base)
	for _, e := range s.exts {
		if strings.HasSuffix(lb, "."+e) && len(lb) > len(e)+1 {
			return true
		}
	}
	return false
}

// fdName is the name pattern of fd's one extension, for the set's
// pattern; "" when there is none, several, or a pattern narrows further.
func fdName(s *Selection) string {
	if len(s.exts) != 1 || strings.ContainsAny(s.exts[0], "*?[]{}\\/!") || s.exts[0] == "" {
		return ""
	}
	return "*." + s.exts[0]
}

// pathspecSelection is the selection of git pathspecs below the current
// directory (git ls-files PATHSPEC…): an entry matches a pathspec, or is
// below a directory that does ("*" crosses "/", as git's wildmatch
// without FNM_PATHNAME). Magic pathspecs (":(…)", ":!"), ".." and
// absolute paths give none (ok false).
func pathspecSelection(specs []Word) (*Selection, bool) {
	var args []Word
	for i, w := range specs {
		v := w.Value
		if !w.Known || v == "" || v[0] == ':' || v[0] == '/' || dotDotSeg(v) {
			return nil, false
		}
		v = strings.TrimSuffix(strings.TrimPrefix(v, "./"), "/")
		if v == "." || v == "" {
			return nil, true // everything
		}
		if i > 0 {
			args = append(args, lit("-o"))
		}
		args = append(args, lit("-path"), lit("./"+v), lit("-o"), lit("-path"), lit("./"+v+"/*"))
	}
	s := findSelection(args, 0, -1, []string{"."})
	return s, s != nil
}
