package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file resolves words statically, the way bash would expand them:
// quotes, escapes, tilde, parameters, command substitutions, brace
// expansion and field splitting. What cannot be resolved makes the word
// unknown (Known=false) and becomes * in its pattern.

// wbuild accumulates the fields of one word.
type wbuild struct {
	a        *analyzer
	out      []Word
	val      []byte
	pat      []byte
	started  bool
	unknown  bool
	loose    bool // an unknown part is unbounded: the pattern is no sound set
	rec      bool // a part has find semantics (wRec)
	setpart  bool // a set word was expanded into the field
	many     bool // an unquoted part may split into several fields
	glob     bool
	boundary bool
	flags    wordFlags
	proc     int
	split    bool   // field splitting applies (command arguments)
	empty    [4]int // positions in pat of bounded holes that may be empty
	nempty   int
	progEnd  int        // len(pat) right after a program location (wProg)
	holes    int        // unknown parts appended to the field (star)
	own      int        // of which the PID of a job this command started ($!)
	sel      *Selection // the selection of a set word that is the whole field
	selPat   string     // that set word's pattern
}

func (b *wbuild) reset() {
	b.val, b.pat = b.val[:0], b.pat[:0]
	b.started, b.unknown, b.glob, b.flags, b.proc = false, false, false, 0, 0
	b.loose, b.rec, b.many, b.setpart, b.nempty, b.progEnd = false, false, false, false, 0, 0
	b.holes, b.own = 0, 0
	b.sel, b.selPat = nil, ""
}

// emit ends the current field.
func (b *wbuild) emit() {
	if !b.started {
		return
	}
	if b.flags&wProg != 0 && len(b.pat) != b.progEnd {
		b.flags &^= wProg // text or a value was glued to the location
	}
	w := Word{Value: string(b.val), Known: !b.unknown, Glob: b.glob, flags: b.flags &^ (wSet | wRec | wOwnPid), proc: b.proc}
	if b.unknown && b.holes > 0 && b.own == b.holes {
		w.flags |= wOwnPid // "$!", "-$pid" with pid=$!: nothing else unknown in it
	}
	if b.unknown || b.glob {
		w.pat = string(b.pat)
	}
	if b.unknown && b.bounded() || !b.unknown && b.setpart {
		w.flags |= wSet
		if b.rec {
			w.flags |= wRec
		}
	}
	if b.sel != nil && w.flags&wRec != 0 && string(b.pat) == b.selPat {
		w.sel = b.sel // the field is the set word alone
	}
	b.out = append(b.out, w)
	b.reset()
}

// bounded reports whether the unknown parts of the current field keep
// its pattern a sound superset of its values: no unbounded hole, no
// possibly empty hole standing alone between slashes (an empty value
// there would remove a path segment), no multi-field value glued to
// other text.
func (b *wbuild) bounded() bool {
	if b.loose || b.many && !(len(b.pat) == 1 && b.pat[0] == '*') {
		return false
	}
	if b.nempty > len(b.empty) {
		return false
	}
	n := len(b.pat)
	for _, p := range b.empty[:b.nempty] {
		left := p == 0 || b.pat[p-1] == '/'
		right := p+1 >= n || b.pat[p+1] == '/'
		if left && right && n > 1 {
			return false
		}
	}
	return true
}

// star appends one * to the pattern (runs of unknown parts are one *)
// and returns its position.
func (b *wbuild) star() int {
	b.started, b.unknown, b.boundary = true, true, false
	b.holes++
	if n := len(b.pat); n == 0 || b.pat[n-1] != '*' {
		b.pat = append(b.pat, '*')
	}
	return len(b.pat) - 1
}

// segHole appends a value known to be a token: no "/", never "." or
// "..", not starting with a dot ($(uname -r), $((...)), $$). It is *
// within one path segment.
func (b *wbuild) segHole(k tokKind, quoted bool) {
	if !quoted && b.split && b.a.varSet("IFS") {
		b.hole() // a changed IFS may split the token anywhere
		return
	}
	p := b.star()
	if k == tokMany {
		if !b.split {
			b.flags |= wMany
		} else if !quoted {
			b.many = true
		}
	}
	if k == tokMany || k == tokMaybeEmpty {
		b.markEmpty(p)
	}
}

func (b *wbuild) markEmpty(p int) {
	if b.nempty < len(b.empty) {
		b.empty[b.nempty] = p
	}
	b.nempty++
}

// setPat appends the value of a set word (a variable holding a find set,
// a loop variable over a glob): its pattern, unescaped even when quoted,
// since it stands for the paths it matches.
func (b *wbuild) setPat(w Word, quoted bool) {
	if len(b.pat) == 0 && len(b.val) == 0 {
		// First in the field ("$f" has started it empty): the field may
		// be the set word alone (emit checks).
		b.sel, b.selPat = w.sel, w.pattern()
	}
	b.started, b.boundary, b.setpart = true, false, true
	if w.Known {
		b.val = append(b.val, w.Value...)
		b.glob = b.glob || w.Glob
	} else {
		b.unknown = true
		b.holes++
	}
	if w.flags&wRec != 0 {
		b.rec = true
	}
	b.flags |= w.flags & wSplit
	if w.flags&wMany != 0 {
		if !b.split {
			b.flags |= wMany
		} else if !quoted {
			b.many = true
		}
	}
	p := w.pattern()
	if n := len(b.pat); n > 0 && b.pat[n-1] == '*' && p != "" && p[0] == '*' && !b.rec {
		p = p[1:]
	}
	b.pat = append(b.pat, p...)
}

// text appends resolved text; quoted text is never a glob.
func (b *wbuild) text(s string, quoted bool) {
	if s == "" {
		b.started = true
		return
	}
	if b.boundary && len(b.val) > 0 && alnum(b.val[len(b.val)-1]) && alnum(s[0]) {
		b.flags |= wObf
	}
	b.boundary = false
	b.started = true
	if len(b.val)+len(s) > maxDecoded {
		// v=$v$v doubles a value at each assignment: past the bound it is
		// unknown, and the analysis says it stopped following it.
		b.a.tagf(nil, TagLimitExceeded, "word size")
		b.hole()
		return
	}
	b.val = append(b.val, s...)
	if quoted {
		b.pat = appendEscaped(b.pat, s)
		return
	}
	b.pat = append(b.pat, s...)
	if hasGlobMeta(s) {
		b.glob = true
	}
}

// hole appends an unresolvable part.
func (b *wbuild) hole() {
	b.star()
	b.loose = true
}

// expansion appends the value of an expansion: unquoted, it is split
// into fields at blanks.
func (b *wbuild) expansion(s string, quoted bool) {
	if quoted || !b.split || !strings.ContainsAny(s, " \t\n") {
		b.text(s, quoted)
		return
	}
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
			j++
		}
		if j > i {
			b.text(s[i:j], false)
		}
		if j < len(s) {
			b.emit()
		}
		i = j + 1
	}
}

// alnum reports whether c is a letter, digit or underscore.
func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return dst
}

func escapeGlob(s string) string {
	if !strings.ContainsAny(s, "*?[\\") {
		return s
	}
	return string(appendEscaped(nil, s))
}

// words resolves w into fields appended to dst (brace expansion and
// field splitting apply).
func (a *analyzer) words(dst []Word, w *syntax.Word) []Word {
	if !a.tick() {
		return append(dst, Word{})
	}
	if v, ok := plainWord(w); ok {
		return append(dst, Word{Value: v, Known: true})
	}
	if ps, ok := a.allParams(w); ok {
		return append(dst, ps...)
	}
	b := wbuild{a: a, split: true, out: dst, val: a.getBuf(), pat: a.getBuf()}
	if mayBrace(w) && syntax.SplitBraces(w) {
		for _, parts := range a.braces(w.Parts) {
			b.parts(parts, false, true)
			b.emit()
		}
	} else {
		b.parts(w.Parts, false, true)
		b.emit()
	}
	a.putBuf(b.val)
	a.putBuf(b.pat)
	return b.out
}

// mayBrace reports whether a word may hold a brace expansion: a literal
// "{" and a "," or ".." (syntax.SplitBraces allocates even when there is
// none).
func mayBrace(w *syntax.Word) bool {
	open, sep := false, false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			open = open || strings.IndexByte(l.Value, '{') >= 0
			sep = sep || strings.IndexByte(l.Value, ',') >= 0 || strings.Contains(l.Value, "..")
		}
	}
	return open && sep
}

// word1 resolves w as a single word (assignments, redirections, patterns).
func (a *analyzer) word1(w *syntax.Word) Word {
	if w == nil || !a.tick() {
		return Word{}
	}
	if v, ok := plainWord(w); ok {
		return Word{Value: v, Known: true}
	}
	var buf [1]Word
	b := wbuild{a: a, out: buf[:0], val: a.getBuf(), pat: a.getBuf()}
	b.parts(w.Parts, false, true)
	b.started = true
	b.emit()
	a.putBuf(b.val)
	a.putBuf(b.pat)
	return b.out[0]
}

// plainWord returns the value of a word that needs no expansion: one
// literal without escapes, braces, globs or a leading tilde, or one
// single-quoted string. (The common case, resolved without copying.)
func plainWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.Lit:
		v := x.Value
		for i := 0; i < len(v); i++ {
			switch v[i] {
			case '\\', '{', '*', '?', '[':
				return "", false
			case '~':
				if i == 0 {
					return "", false
				}
			}
		}
		return v, true
	case *syntax.SglQuoted:
		if !x.Dollar {
			return x.Value, true
		}
	}
	return "", false
}

// parts resolves word parts; first is set at the start of a word (tilde).
func (b *wbuild) parts(parts []syntax.WordPart, quoted, first bool) {
	for i, p := range parts {
		b.boundary = true
		switch x := p.(type) {
		case *syntax.Lit:
			b.lit(x.Value, quoted, first && i == 0)
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				var esc bool
				v, esc = ansiC(v)
				if esc {
					b.flags |= wObf
				}
			}
			b.text(v, true)
		case *syntax.DblQuoted:
			b.started = true
			b.parts(x.Parts, true, false)
		case *syntax.ParamExp:
			b.param(x, quoted)
		case *syntax.CmdSubst:
			b.subst(x, quoted)
		case *syntax.ArithmExp:
			b.a.arithm(x.X)
			b.segHole(tokOne, quoted)
		case *syntax.ProcSubst:
			b.procSubst(x)
		case *syntax.ExtGlob:
			b.glob = true
			b.started = true
			b.val = append(b.val, x.Pattern.Value...)
			b.pat = append(b.pat, '*')
		default:
			b.hole()
		}
	}
}

// lit appends a literal, handling backslashes and a leading tilde.
func (b *wbuild) lit(s string, quoted, first bool) {
	if first && !quoted && strings.HasPrefix(s, "~") {
		end := strings.IndexByte(s, '/')
		if end < 0 {
			end = len(s)
		}
		t := b.a.tilde(s[:end])
		if t != "" && t[0] == '~' {
			b.hole()
		} else {
			b.text(t, true)
		}
		s = s[end:]
	}
	if strings.IndexByte(s, '\\') < 0 {
		b.text(s, quoted)
		return
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			continue
		}
		c := s[i+1]
		if quoted && c != '$' && c != '`' && c != '"' && c != '\\' && c != '\n' {
			continue
		}
		b.text(s[start:i], quoted)
		if c != '\n' {
			if !quoted && i > 0 && alnum(s[i-1]) && alnum(c) {
				b.flags |= wObf
			}
			b.text(s[i+1:i+2], true)
		}
		i++
		start = i + 1
	}
	b.text(s[start:], quoted)
}

// subst appends the output of a command substitution.
func (b *wbuild) subst(cs *syntax.CmdSubst, quoted bool) {
	out := b.a.substitute(cs.Stmts)
	b.flags |= wSubst
	if out.net {
		b.flags |= wNet
	}
	if out.decoded {
		b.flags |= wDecoded
	}
	if !out.known {
		switch {
		case out.prog != "":
			// Where a program is found: "DIR/prog", DIR unknown.
			b.progLoc(out.prog)
		case len(streamItems(&out)) > 0 && (!quoted || out.single) && (b.split || len(out.items) == 1):
			// A list of paths (find, ls, grep -l): one field per item
			// set, or the one item a quoted single line holds.
			for i, it := range out.items {
				if i > 0 {
					b.emit()
				}
				if !quoted {
					it.flags |= wSplit // word splitting: pieces of names
				}
				b.setPat(it, quoted)
			}
		case out.tok != tokNone:
			b.segHole(out.tok, quoted)
		default:
			b.hole()
		}
		return
	}
	b.expansion(strings.TrimRight(out.text, "\n"), quoted)
}

// substitute runs the statements of $(...) in a subshell and returns
// their output; the data sources of the output join the current word's.
func (a *analyzer) substitute(list []*syntax.Stmt) stream {
	out := a.scoped(list, nil)
	a.wsrc = append(a.wsrc, out.srcs...)
	dump, names := heldDump(out)
	if !out.known && len(out.srcs) == 0 && out.from != "" || dump || names {
		a.wsrc = append(a.wsrc, source{kind: SourceCommand, name: out.from, dump: dump, names: names})
	}
	return out
}

// procSubst runs <(...) or >(...); the word is a /dev/fd path whose
// content is remembered for the program that reads it.
func (b *wbuild) procSubst(ps *syntax.ProcSubst) {
	a := b.a
	var out stream
	if ps.Op == syntax.CmdIn {
		out = a.scoped(ps.Stmts, nil)
	} else {
		in := stream{piped: true, from: "process substitution"}
		a.scoped(ps.Stmts, &in)
	}
	a.procs = append(a.procs, out)
	b.proc = len(a.procs)
	if out.net {
		b.flags |= wNet
	}
	if out.decoded {
		b.flags |= wDecoded
	}
	b.text("/dev/fd/63", true)
}

// progLoc appends where PATH finds the program name ("DIR/name", DIR
// unknown). Alone in its field, the word is marked wProg.
func (b *wbuild) progLoc(name string) {
	alone := len(b.pat) == 0 && len(b.val) == 0 && !b.unknown
	b.hole()
	b.text("/"+name, true)
	if alone {
		b.flags |= wProg
		b.progEnd = len(b.pat)
	}
}

// allParams expands "$@" (and $@, $* unquoted) to the positional
// parameters, one word each, when they are known and few: a function
// called as f -f build/x gets both words, not one unknown.
func (a *analyzer) allParams(w *syntax.Word) ([]Word, bool) {
	if len(w.Parts) != 1 {
		return nil, false
	}
	quoted := false
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 && !dq.Dollar {
		quoted, part = true, dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || !plainParam(pe) {
		return nil, false
	}
	if name := pe.Param.Value; name != "@" && (quoted || name != "*") {
		return nil, false
	}
	nw, _, found := a.getVar("#")
	if !found || !nw.Known || len(nw.Value) != 1 || nw.Value[0] < '2' || nw.Value[0] > '9' {
		return nil, false // none or one: the variable itself says it
	}
	n := int(nw.Value[0] - '0')
	out := make([]Word, 0, n)
	for i := 1; i <= n; i++ {
		v, _, found := a.getVar(paramNames[i])
		if !found || !v.Known || !quoted && strings.ContainsAny(v.Value, " \t\n*?[") {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}
