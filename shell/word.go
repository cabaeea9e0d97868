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
	glob     bool
	boundary bool
	flags    wordFlags
	proc     int
	split    bool // field splitting applies (command arguments)
}

func (b *wbuild) reset() {
	b.val, b.pat = b.val[:0], b.pat[:0]
	b.started, b.unknown, b.glob, b.flags, b.proc = false, false, false, 0, 0
}

// emit ends the current field.
func (b *wbuild) emit() {
	if !b.started {
		return
	}
	w := Word{Value: string(b.val), Known: !b.unknown, Glob: b.glob, flags: b.flags, proc: b.proc}
	if b.unknown || b.glob {
		w.pat = string(b.pat)
	}
	b.out = append(b.out, w)
	b.reset()
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
	b.started = true
	b.unknown = true
	b.boundary = false
	if n := len(b.pat); n == 0 || b.pat[n-1] != '*' {
		b.pat = append(b.pat, '*')
	}
}

// expansion appends the value of an expansion: unquoted, it is split
// into fields at blanks.
func (b *wbuild) expansion(s string, quoted bool) {
	if quoted || !b.split || strings.IndexAny(s, " \t\n") < 0 {
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
	if strings.IndexAny(s, "*?[\\") < 0 {
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
	b := wbuild{a: a, split: true, out: dst}
	if syntax.SplitBraces(w) {
		for _, parts := range a.braces(w.Parts) {
			b.parts(parts, false, true)
			b.emit()
		}
		return b.out
	}
	b.parts(w.Parts, false, true)
	b.emit()
	return b.out
}

// word1 resolves w as a single word (assignments, redirections, patterns).
func (a *analyzer) word1(w *syntax.Word) Word {
	if w == nil || !a.tick() {
		return Word{}
	}
	var buf [1]Word
	b := wbuild{a: a, out: buf[:0]}
	b.parts(w.Parts, false, true)
	b.started = true
	b.emit()
	return b.out[0]
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
			b.hole()
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
		b.hole()
		return
	}
	b.expansion(strings.TrimRight(out.text, "\n"), quoted)
}

// substitute runs the statements of $(...) in a subshell and returns
// their output; the data sources of the output join the current word's.
func (a *analyzer) substitute(list []*syntax.Stmt) stream {
	out := a.scoped(list, nil)
	a.wsrc = append(a.wsrc, out.srcs...)
	if !out.known && len(out.srcs) == 0 && out.from != "" {
		a.wsrc = append(a.wsrc, source{SourceCommand, out.from})
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
