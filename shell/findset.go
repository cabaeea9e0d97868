package shell

import (
	"github.com/parallax/parallax/internal/glob"
	"path"
	"strings"

	"github.com/parallax/parallax/action"
)

// This file turns the files find selects into path sets. A set is a
// word whose pattern has find semantics (wRec, PathUse.Recursive):
// "ROOT/**" for everything at or below ROOT, "ROOT/**/NAME" when one
// -name test narrows it. The set stands for find's {} in -exec, what
// -delete removes, what find prints (for xargs, $(find ...) and loops),
// and likewise for ls and grep -l output.
//
// The knowledge base entry of find still parses the expression (roots,
// -exec commands, -fprint); prep rewrites the call's words before the
// entry's Check runs, so that {} reaches the nested command as a set.

// maxItemSets bounds the sets one output is described by.
const maxItemSets = 4

// setWord makes a word standing for the paths that match pat.
func setWord(pat string, rec bool) Word {
	w := Word{Value: literalPrefix(pat), pat: pat, flags: wSet}
	if rec {
		w.flags |= wRec
	}
	return w
}

// literalPrefix is the part of a pattern before its first metacharacter.
func literalPrefix(pat string) string {
	if i := strings.IndexAny(pat, "*?[\\"); i >= 0 {
		return pat[:i]
	}
	return pat
}

// wordPat is the pattern of a word as text (not resolved against a
// directory); ok is false when the word is not a sound set.
func wordPat(w Word) (string, bool) {
	switch {
	case w.proc > 0:
		return "", false
	case w.Known && !w.Glob:
		return escapeGlob(w.Value), w.Value != ""
	case w.Known || w.flags&wSet != 0:
		return w.pattern(), w.pattern() != ""
	}
	return "", false
}

// treePat is ROOT/** narrowed by a name pattern.
func treePat(root, name string) string {
	p := strings.TrimRight(root, "/") + "/**"
	if name != "" {
		p += "/" + name
	}
	return p
}

// useTree records a recursive selection of the files below the directory
// a known word names, narrowed by a name pattern. Unknown and glob words
// are left to the plain use the caller recorded.
func (a *analyzer) useTree(c *Call, w Word, name string, acc action.Access, sel *Selection) {
	if !w.Known || w.Glob {
		return
	}
	p, ok := a.abs(c, w)
	if !ok {
		return
	}
	if w.flags&wPiece != 0 {
		a.piece = true
		defer func() { a.piece = false }()
	}
	a.usePathSel(c, treePat(escapeGlob(p), name), acc, true, true, sel)
}

// prep adjusts a call before its knowledge base Check runs.
func (a *analyzer) prep(c *Call) {
	switch c.Name {
	case "find", "gfind":
		a.prepFind(c)
	case "xargs":
		a.prepXargs(c)
	}
}

// findRoots returns where find's expression starts and the patterns of
// its roots ("." when none); ok is false when a root is not a sound set.
func findRoots(args []Word, pats []string) (start int, _ []string, ok bool) {
	i := 0
	for i < len(args) && args[i].Known && (args[i].Value == "-H" || args[i].Value == "-L" ||
		args[i].Value == "-P" || strings.HasPrefix(args[i].Value, "-O")) {
		i++
	}
	for ; i < len(args); i++ {
		v := args[i].Value
		if args[i].Known && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ",") {
			break
		}
		p, ok := wordPat(args[i])
		if !ok {
			return i, nil, false
		}
		pats = append(pats, p)
	}
	if len(pats) == 0 {
		pats = append(pats, ".")
	}
	return i, pats, true
}

// isFindAction reports whether v starts an -exec-like action.
func isFindAction(v string) bool {
	return v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir"
}

// execEnd returns the index of the ";" or "+" ending the action at i.
func execEnd(args []Word, i int) int {
	j := i + 1
	for j < len(args) && !(args[j].Known && (args[j].Value == ";" || args[j].Value == "+")) {
		j++
	}
	return j
}

// findName returns the name pattern that narrows what reaches args[to]:
// the only -name or -iname test before it in an expression without
// negation or alternatives; "" when nothing narrows it soundly.
func findName(args []Word, from, to int) string {
	name, n := "", 0
	for i := from; i < to && i < len(args); i++ {
		w := args[i]
		if !w.Known {
			return "" // an unknown operator may be ! or -o
		}
		switch v := w.Value; {
		case v == "!" || v == "-not" || v == "-o" || v == "-or" || v == ",":
			return ""
		case v == "-name" || v == "-iname":
			if i+1 >= to || !args[i+1].Known || strings.IndexByte(args[i+1].Value, '/') >= 0 || args[i+1].Value == "" {
				return ""
			}
			name, n = args[i+1].Value, n+1
			if v == "-iname" {
				name = glob.Fold(name)
			}
			i++
		case isFindAction(v):
			i = execEnd(args, i)
		case v == "-fprintf":
			i += 2
		case findValue1[v] || findRead[v] || findWrite[v]:
			i++
		}
	}
	if n != 1 {
		return ""
	}
	return name
}

// prepFind replaces {} in -exec commands by the set of files find
// selects, and notes what -delete removes.
func (a *analyzer) prepFind(c *Call) {
	args := c.Args
	var pb [4]string
	start, pats, ok := findRoots(args, pb[:0])
	if !ok {
		return
	}
	var out []Word
	for i := start; i < len(args); i++ {
		v := args[i]
		if !v.Known {
			continue
		}
		switch {
		case isFindAction(v.Value):
			j := execEnd(args, i)
			set, ok := a.findSet(c, pats, findName(args, start, i))
			set.sel = findSelection(args, start, i, pats)
			inDir := v.Value == "-execdir" || v.Value == "-okdir"
			for k := i + 1; ok && k < j; k++ {
				if nw, ok := braceWord(args[k], set, !inDir); ok {
					if out == nil {
						out = append([]Word(nil), args...)
					}
					out[k] = nw
				}
			}
			i = j
		case v.Value == "-delete" && c.delSet == nil:
			name := findName(args, start, i)
			sel := findSelection(args, start, i, pats)
			for _, p := range pats {
				w := setWord(treePat(p, name), true)
				w.sel = sel
				c.delSet = append(c.delSet, w)
			}
		}
	}
	if out != nil {
		c.Args = out
	}
}

// braceWord replaces a word that is {} or starts with it ({}.bak) and,
// when prefixed, one with a directory before it (backup/{}, /dest/{}):
// find's {} is the root as written and the path below it, so the word
// names the same tree under that directory (a name find returns has no
// ".." of its own). Not for -execdir, whose {} is ./NAME in the file's
// own directory, nor for a prefix that is not a plain directory: an
// option (--target-directory=), an assignment (of=) or a host (h:) would
// be taken for a local path.
func braceWord(w Word, set Word, prefixed bool) (Word, bool) {
	if !w.Known {
		return Word{}, false
	}
	pre, rest, ok := strings.Cut(w.Value, "{}")
	switch {
	case !ok || strings.Contains(rest, "{}"):
		return Word{}, false
	case pre == "" && rest == "":
		return set, true
	case pre == "":
		return setWord(set.pat+escapeGlob(rest), true), true
	case !prefixed || !strings.HasSuffix(pre, "/") || pre[0] == '-' || strings.ContainsAny(pre, "=:"):
		return Word{}, false
	}
	return setWord(escapeGlob(pre)+set.pat+escapeGlob(rest), true), true
}

// findSet is one set word for the files of all roots: the root's tree,
// or the tree of the roots' common directory.
func (a *analyzer) findSet(c *Call, pats []string, name string) (Word, bool) {
	if len(pats) == 1 {
		return setWord(treePat(pats[0], name), true), true
	}
	common := ""
	for i, p := range pats {
		dir := literalPrefix(p)
		if dir != p {
			dir = dir[:strings.LastIndexByte(dir, '/')+1]
		}
		abs, ok := a.absPath(c.Cwd, orDefault(dir, "."))
		if !ok {
			return Word{}, false
		}
		if i == 0 {
			common = abs
			continue
		}
		for common != "/" && abs != common && !strings.HasPrefix(abs, common+"/") {
			common = path.Dir(common)
		}
	}
	return setWord(treePat(escapeGlob(common), name), true), true
}

// findItems describes what find prints: one set per root, when the only
// output is -print or -print0 (or the implicit -print).
func findItems(c *Call) []Word {
	args := c.Args
	var pb [4]string
	start, pats, ok := findRoots(args, pb[:0])
	if !ok || len(pats) > maxItemSets {
		return nil
	}
	end := len(args)
	for i := start; i < len(args); i++ {
		if !args[i].Known {
			continue
		}
		switch v := args[i].Value; {
		case isFindAction(v) || v == "-printf" || v == "-ls" || v == "-fprint" || v == "-fprint0" ||
			v == "-fprintf" || v == "-fls":
			return nil
		case (v == "-print" || v == "-print0") && end == len(args):
			end = i
		}
	}
	name := findName(args, start, end)
	sel := findSelection(args, start, -1, pats)
	out := make([]Word, 0, len(pats))
	for _, p := range pats {
		w := setWord(treePat(p, name), true)
		w.sel = sel
		out = append(out, w)
	}
	return out
}

// prepXargs gives xargs the items of its input: appended to the command,
// or in place of the -I string.
func (a *analyzer) prepXargs(c *Call) {
	opts, cmd := splitWrapper(c)
	c.Positional, c.Flags = cmd, opts
	if len(cmd) == 0 {
		c.Positional = []Word{lit("echo")}
	}
	mark := ""
	if w, ok := c.Flag("-I"); ok {
		if !w.Known || w.Value == "" {
			c.replace = true
			return
		}
		mark = w.Value
	} else if w, ok := c.Flag("-i", "--replace"); ok {
		mark = "{}"
		if w.Known && w.Value != "" {
			mark = w.Value
		}
	}
	c.replace = mark != ""
	in := c.stdin
	if in == nil || !in.piped || len(streamItems(in)) == 0 {
		return
	}
	if _, ok := c.Flag("-a", "--arg-file"); ok {
		return
	}
	split := xargsSplits(c)
	if !c.replace {
		c.items, c.itemsOK = in.items, true
		if split {
			c.items = make([]Word, len(in.items))
			for i, it := range in.items {
				it.flags |= wSplit
				c.items[i] = it
			}
		}
		return
	}
	if len(c.Positional) < 2 {
		return
	}
	// One run per item set, each with the set in place of the mark.
	for _, item := range in.items {
		pos := append([]Word(nil), c.Positional...)
		for k := 1; k < len(pos); k++ {
			w := pos[k]
			if !w.Known || strings.Count(w.Value, mark) != 1 {
				continue
			}
			pre, suf, _ := strings.Cut(w.Value, mark)
			pos[k] = setWord(escapeGlob(pre)+item.pattern()+escapeGlob(suf), item.flags&wRec != 0)
			if pre == "" && suf == "" && item.flags&wRec != 0 {
				pos[k].sel = item.sel // the item itself: the files its listing selects
			}
			if split {
				pos[k].flags |= wSplit // -I reads lines: a name may hold a newline
			}
		}
		c.runs = append(c.runs, pos)
	}
	c.Positional = c.runs[0]
}

// xargsSplits reports whether xargs splits its input where a name may
// (blanks, newlines, quotes; -I and -L: lines; -d: any delimiter but
// NUL): everything but -0/--null or -d with NUL.
func xargsSplits(c *Call) bool {
	if _, ok := c.Flag("-0", "--null"); ok {
		return false
	}
	if w, ok := c.Flag("-d", "--delimiter"); ok && w.Known && nulDelim(w.Value) {
		return false
	}
	return true
}

// splitWrapper splits a wrapper's arguments (xargs) at its command: the
// options before it, and the command with its own options, which the
// generic flag parser would have taken as the wrapper's (xargs sed -i).
func splitWrapper(c *Call) (map[string]Word, []Word) {
	opts := make(map[string]Word, 4)
	args := c.Args
	fl := c.prog.Flags
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !isFlagWord(w) {
			break
		}
		if w.Value == "--" {
			i++
			break
		}
		if strings.HasPrefix(w.Value, "--") {
			name, val, eq := strings.Cut(w.Value, "=")
			v := Word{Value: val, Known: w.Known}
			if f := fl[name]; f.Value && !eq && i+1 < len(args) {
				i++
				v = args[i]
			}
			opts[name] = v
			continue
		}
		s := w.Value
		for j := 1; j < len(s); j++ {
			name := "-" + s[j:j+1]
			if !fl[name].Value {
				opts[name] = Word{Known: true}
				continue
			}
			v := Word{Value: s[j+1:], Known: w.Known}
			if j+1 == len(s) && i+1 < len(args) {
				i++
				v = args[i]
			}
			opts[name] = v
			break
		}
	}
	return opts, args[i:]
}

// items describes the output of a call as paths from known sets.
func (a *analyzer) items(c *Call, in *stream) ([]Word, bool) {
	switch c.Name {
	case "find", "gfind":
		return findItems(c), false
	case "ls", "gls":
		return lsItems(c), false
	case "grep", "egrep", "fgrep", "rgrep":
		return grepItems(c, in)
	case "rg":
		return rgItems(c), false
	case "sort", "uniq", "tac", "shuf", "cat", "tee", "head", "tail":
		return filterItems(c, in)
	}
	return nil, false
}

// lsFlags are the ls options that print bare names.
const lsFlags = "-1 -A -t -r -S -X -v -U -c -u -h -d -F -p -Q -b -N -q -m -x -C -G -B -k -H -L -i -I -w -T" +
	" --almost-all --color --colour --sort --time --group-directories-first --classify --directory" +
	" --human-readable --reverse --literal --escape --ignore --hide --width --tabsize" +
	" --indicator-style --quoting-style --dereference --dereference-command-line --si"

// lsItems: ls prints names (one path segment, relative to the consumer)
// and the operands that are files, as written.
func lsItems(c *Call) []Word {
	if !onlyFlags(c, lsFlags) || len(c.Positional) >= maxItemSets {
		return nil
	}
	_, dot := c.Flag("-A", "--almost-all")
	out := []Word{setWord("*", dot)}
	for _, w := range c.Positional {
		p, ok := wordPat(w)
		if !ok {
			return nil
		}
		if strings.IndexByte(p, '/') >= 0 {
			if len(c.Positional) > 1 {
				return nil // "DIR:" headers
			}
			out = append(out, setWord(p, false))
		}
	}
	return out
}

// grepItems: grep -l prints the files that match (from its operands, or
// below them with -r); a grep filtering its input prints some of its
// lines unchanged.
func grepItems(c *Call, in *stream) ([]Word, bool) {
	_, e := c.Flag("-e", "--regexp", "-f", "--file")
	files := c.Positional
	if !e && len(files) > 0 {
		files = files[1:]
	}
	_, rec := c.Flag("-r", "-R", "--recursive", "--dereference-recursive")
	rec = rec || c.Name == "rgrep" || flagValIs(c, []string{"-d", "--directories"}, "recurse")
	if _, ok := c.Flag("-l", "-L", "--files-with-matches", "--files-without-match"); ok {
		if rec {
			// What it lists below its operands: the files its filters
			// (--include, --exclude, --exclude-dir) select.
			sel := listSelection(c)
			return treeItems(files, sel, listName(sel)), false
		}
		if len(files) == 0 || len(files) > maxItemSets {
			return nil, false
		}
		out := make([]Word, 0, len(files))
		for _, w := range files {
			p, ok := wordPat(w)
			if !ok {
				return nil, false
			}
			set := setWord(p, w.flags&wRec != 0)
			if set.flags&wRec != 0 {
				set.sel = w.sel.withSearch(nil) // a set it was given: some of its files
			}
			out = append(out, set)
		}
		return out, false
	}
	if len(files) > 0 || rec || !onlyFlags(c, "-e --regexp -f --file -E -F -G -P -i -y -v -w -x -s -a -I -U -z"+
		" --extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case"+
		" --invert-match --word-regexp --line-regexp --no-messages --text --color --colour -m --max-count"+
		" -Z --null --null-data") {
		return nil, false
	}
	return passItems(in)
}

// streamItems returns the item sets of a stream, describing find's
// output when first asked (most find output is never split into items).
func streamItems(s *stream) []Word {
	if s.items == nil && s.findCall != nil {
		s.items = findItems(s.findCall)
		s.findCall = nil
	}
	return s.items
}

// passItems passes the items of the input on, unchanged.
func passItems(in *stream) ([]Word, bool) {
	if in == nil || !in.piped || len(streamItems(in)) == 0 {
		return nil, false
	}
	return in.items, in.single
}

// filterItems: programs that print some of their input lines as they
// are (sort, uniq, head, tail, cat, tee) keep the items.
func filterItems(c *Call, in *stream) ([]Word, bool) {
	if len(c.Positional) > 0 && c.Name != "tee" {
		return nil, false
	}
	switch c.Name {
	case "head", "tail":
		if _, ok := c.Flag("-c", "--bytes"); ok {
			return nil, false
		}
		items, single := passItems(in)
		if w, ok := c.Flag("-n", "--lines"); ok && w.Known && w.Value == "1" || c.has("-1") {
			single = true
		}
		return items, single
	case "uniq":
		if _, ok := c.Flag("-c", "--count"); ok {
			return nil, false
		}
	case "cat":
		if !onlyFlags(c, "-s -u --squeeze-blank") {
			return nil, false
		}
	case "shuf":
		if _, ok := c.Flag("-e", "--echo", "-i", "--input-range"); ok {
			return nil, false
		}
	}
	return passItems(in)
}
