package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file parses the common simple commands without mvdan's parser.
//
// fastParse accepts a strict subset of bash and builds for it the very
// AST (*syntax.File) that syntax.NewParser(syntax.Variant(syntax.LangBash))
// builds, positions aside (the analyser never reads positions). Anything
// outside the subset returns ok=false and the caller parses with mvdan:
// refusing is always correct. The differential tests and FuzzFastParse
// (fastparse_test.go) hold the two parsers equal.
//
// The subset: statements separated by ';' or newlines, joined by && and ||
// (left-associative), of pipelines joined by | (left-associative); each
// command a CallExpr of words only (no assignments, redirections, &
// background or ! negation), whose first word is no reserved word or
// declaration builtin, and whose first literal holds no '=', '{' or '}'
// and is not split at '['. A word concatenates unquoted literals of
// printable ASCII (a backslash escaping a printable character),
// single-quoted strings, double-quoted strings of literals and parameters,
// and parameters: $name, ${name}, $0-$9, $@ $* $# $$ $? $! $- and
// ${digits}. Everything else is refused: other uses of $, `, ( ) < >, a
// lone &, comments, a backslash before a newline, a tab or a control byte,
// control bytes other than tab and newline, and non-ASCII bytes.
//
// Nodes come from a fastArena kept on the analyzer. Parses nested in one
// analysis (sh -c, eval) take further nodes; all are freed together by
// release, after the analysis. That is safe because the AST is only
// referenced while the analysis walks it: nothing in the Effects points
// into it (funcDef bodies come from FuncDecl nodes, which this parser never
// builds), and Lit values are substrings of the parsed code, never of
// recycled memory.

// Byte classes of unquoted text.
const (
	fcBad  = iota // refused: ` ( ) < > control bytes, non-ASCII
	fcLit         // part of a literal
	fcLitX        // part of a literal that lit looks at: \ [ = { }
	fcEnd         // ends a word: blank, newline, ; | &
	fcSgl         // '
	fcDbl         // "
	fcDol         // $
)

// fastClass classifies the bytes of unquoted text.
var fastClass = func() (t [256]uint8) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = fcLit
	}
	for _, c := range "`()<>" {
		t[c] = fcBad
	}
	for _, c := range "\\[={}" {
		t[c] = fcLitX
	}
	for _, c := range " \t\n;|&" {
		t[c] = fcEnd
	}
	t['\''], t['"'], t['$'] = fcSgl, fcDbl, fcDol
	return t
}()

// fastReserved reports whether mvdan parses a command starting with the
// literal v as something other than a plain call (reserved words,
// declaration and let builtins) or refuses it.
func fastReserved(v string) bool {
	switch v {
	case "!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac",
		"fi", "for", "function", "if", "in", "select", "then", "time", "until",
		"while", "{", "}", "{}", "let", "declare", "local", "export", "readonly",
		"typeset", "nameref", "@test":
		return true
	}
	return false
}

// fastParser is the state of one fast parse.
type fastParser struct {
	src string
	i   int
	ar  *fastArena
}

// fastParse parses src as bash when it lies in the subset described
// above, with nodes from ar. ok=false means: parse it with mvdan.
func fastParse(src string, ar *fastArena) (f *syntax.File, ok bool) {
	m := ar.mark()
	p := fastParser{src: src, ar: ar}
	list := p.stmts()
	if len(list) == 0 {
		ar.undo(m)
		return nil, false
	}
	f = ar.files.one()
	f.Stmts = ar.sptrs.take(len(list))
	copy(f.Stmts, list)
	return f, true
}

// stmts parses the statement list into the arena's scratch list; nil when
// the code is outside the subset.
func (p *fastParser) stmts() []*syntax.Stmt {
	list := p.ar.list[:0]
	p.blanks(true)
	for p.i < len(p.src) {
		s := p.andOr()
		if s == nil {
			return nil
		}
		list = append(list, s)
		p.blanks(false)
		if p.i < len(p.src) {
			switch p.src[p.i] {
			case ';':
				p.i++
			case '\n':
			default:
				return nil // & and anything a word does not take
			}
		}
		p.blanks(true)
	}
	p.ar.list = list[:0]
	return list
}

// blanks skips spaces and tabs, and newlines too when nl is set.
func (p *fastParser) blanks(nl bool) {
	for ; p.i < len(p.src); p.i++ {
		switch p.src[p.i] {
		case ' ', '\t':
		case '\n':
			if !nl {
				return
			}
		default:
			return
		}
	}
}

// andOr parses pipelines joined by && and ||, left-associative.
func (p *fastParser) andOr() *syntax.Stmt {
	x := p.pipeline()
	for x != nil {
		p.blanks(false)
		if p.i+1 >= len(p.src) {
			return x
		}
		var op syntax.BinCmdOperator
		switch p.src[p.i : p.i+2] {
		case "&&":
			op = syntax.AndStmt
		case "||":
			op = syntax.OrStmt
		default:
			return x
		}
		p.i += 2
		p.blanks(true)
		y := p.pipeline()
		if y == nil {
			return nil
		}
		x = p.ar.binary(op, x, y)
	}
	return nil
}

// pipeline parses commands joined by |, left-associative.
func (p *fastParser) pipeline() *syntax.Stmt {
	x := p.command()
	for x != nil {
		p.blanks(false)
		if p.i >= len(p.src) || p.src[p.i] != '|' ||
			p.i+1 < len(p.src) && p.src[p.i+1] == '|' {
			return x
		}
		p.i++
		p.blanks(true)
		y := p.command()
		if y == nil {
			return nil
		}
		x = p.ar.binary(syntax.Pipe, x, y)
	}
	return nil
}

// command parses a simple command of words only.
func (p *fastParser) command() *syntax.Stmt {
	argv := p.ar.argv[:0]
	for {
		p.blanks(false)
		if p.i >= len(p.src) || fastClass[p.src[p.i]] == fcEnd {
			break
		}
		w := p.word(len(argv) == 0)
		if w == nil {
			return nil
		}
		argv = append(argv, w)
	}
	p.ar.argv = argv[:0]
	if len(argv) == 0 {
		return nil
	}
	n := p.ar.cmds.one()
	n.call.Args = p.ar.wptrs.take(len(argv))
	copy(n.call.Args, argv)
	n.stmt.Cmd = &n.call
	return &n.stmt
}

// word parses one word; first is set for the command name.
func (p *fastParser) word(first bool) *syntax.Word {
	if p.src[p.i] == '#' {
		return nil // a comment
	}
	parts := p.ar.wparts[:0]
	for p.i < len(p.src) && fastClass[p.src[p.i]] != fcEnd {
		var part syntax.WordPart
		switch fastClass[p.src[p.i]] {
		case fcLit, fcLitX:
			part = p.lit(first && len(parts) == 0)
		case fcSgl:
			part = p.sglQuoted()
		case fcDbl:
			part = p.dblQuoted()
		case fcDol:
			part = p.param()
		}
		if part == nil {
			return nil
		}
		parts = append(parts, part)
	}
	p.ar.wparts = parts[:0]
	w := p.ar.words.one()
	w.word.Parts = p.ar.partList(parts, &w.part)
	return &w.word
}

// lit parses an unquoted literal. Like mvdan's lexer it ends before a '['
// unless the literal starts with '[' or '{' (a[i]=x is an assignment).
// The first literal of a command name must not hold '=' (an assignment),
// '{' or '}' (blocks), be split at '[' or be a reserved word.
func (p *fastParser) lit(name bool) syntax.WordPart {
	start := p.i
	for p.i < len(p.src) {
		switch fastClass[p.src[p.i]] {
		case fcLit:
			p.i++
			continue
		case fcLitX:
		default:
			return p.litEnd(start, name)
		}
		switch p.src[p.i] {
		case '\\':
			if !p.escapes(p.i) {
				return nil
			}
			p.i++
		case '[':
			if p.i > start && p.src[start] != '[' && p.src[start] != '{' {
				if name {
					return nil
				}
				return p.ar.lit(p.src[start:p.i])
			}
		case '=', '{', '}':
			if name {
				return nil
			}
		}
		p.i++
	}
	return p.litEnd(start, name)
}

// litEnd returns the literal from start to p.i.
func (p *fastParser) litEnd(start int, name bool) syntax.WordPart {
	v := p.src[start:p.i]
	if name && fastReserved(v) {
		return nil
	}
	return p.ar.lit(v)
}

// escapes reports whether the backslash at i escapes a printable
// character (not a newline: a line continuation).
func (p *fastParser) escapes(i int) bool {
	return i+1 < len(p.src) && p.src[i+1] >= ' ' && p.src[i+1] < 0x7f
}

// param parses $name, ${name}, ${digits} or a one-character parameter
// ($0-$9, $@ $* $# $$ $? $! $-) at p.i.
func (p *fastParser) param() syntax.WordPart {
	i := p.i + 1
	if i >= len(p.src) {
		return nil
	}
	braced := p.src[i] == '{'
	if braced {
		i++
	}
	start := i
	switch c := byteAt(p.src, i); {
	case c == '_' || asciiAlpha(c):
		for i < len(p.src) && (p.src[i] == '_' || asciiAlpha(p.src[i]) || asciiNum(p.src[i])) {
			i++
		}
	case asciiNum(c) && braced:
		for i < len(p.src) && asciiNum(p.src[i]) {
			i++
		}
	case asciiNum(c) || !braced && strings.IndexByte("@*#$?!-", c) >= 0:
		i++
	default:
		return nil
	}
	name := p.src[start:i]
	if braced {
		if byteAt(p.src, i) != '}' {
			return nil
		}
		i++
	}
	p.i = i
	n := p.ar.params.one()
	n.lit.Value = name
	n.pe.Param = &n.lit
	n.pe.Short = !braced
	return &n.pe
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func asciiAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func asciiNum(c byte) bool   { return '0' <= c && c <= '9' }

// sglQuoted parses '...': any printable ASCII, tab or newline up to the
// closing quote.
func (p *fastParser) sglQuoted() syntax.WordPart {
	start := p.i + 1
	for j := start; j < len(p.src); j++ {
		switch c := p.src[j]; {
		case c == '\'':
			p.i = j + 1
			q := p.ar.sqs.one()
			q.Value = p.src[start:j]
			return q
		case c < ' ' && c != '\t' && c != '\n' || c >= 0x7f:
			return nil
		}
	}
	return nil // unterminated
}

// dblQuoted parses "...": literals (printable ASCII, tab, newline, a
// backslash escaping a printable character) and parameters; no parts when
// empty.
func (p *fastParser) dblQuoted() syntax.WordPart {
	parts := p.ar.dparts[:0]
	start := p.i + 1
	for j := start; j < len(p.src); {
		switch c := p.src[j]; {
		case c == '"' || c == '$':
			if j > start {
				parts = append(parts, p.ar.lit(p.src[start:j]))
			}
			if c == '"' {
				p.i = j + 1
				p.ar.dparts = parts[:0]
				q := p.ar.dqs.one()
				q.dq.Parts = p.ar.partList(parts, &q.part)
				return &q.dq
			}
			p.i = j
			pe := p.param()
			if pe == nil {
				return nil
			}
			parts = append(parts, pe)
			j, start = p.i, p.i
		case c == '\\':
			if !p.escapes(j) {
				return nil
			}
			j += 2
		case c == '`' || c < ' ' && c != '\t' && c != '\n' || c >= 0x7f:
			return nil
		default:
			j++
		}
	}
	return nil // unterminated
}

// fastArena holds the nodes of fast parses. Slabs are reused by the next
// analysis (reset); a slab that fills up is replaced, the old one staying
// alive through the nodes that point into it.
type fastArena struct {
	files  slab[syntax.File]
	cmds   slab[fastCmd]
	bins   slab[fastBin]
	words  slab[fastWord]
	lits   slab[syntax.Lit]
	sqs    slab[syntax.SglQuoted]
	dqs    slab[fastDbl]
	params slab[fastParam]
	sptrs  slab[*syntax.Stmt]
	wptrs  slab[*syntax.Word]
	parts  slab[syntax.WordPart]

	// Scratch of one parse: statements, words of a command, parts of a word.
	list   []*syntax.Stmt
	argv   []*syntax.Word
	wparts []syntax.WordPart
	dparts []syntax.WordPart
}

// Nodes allocated together.
type (
	fastCmd struct {
		stmt syntax.Stmt
		call syntax.CallExpr
	}
	fastBin struct {
		stmt syntax.Stmt
		bin  syntax.BinaryCmd
	}
	fastWord struct {
		word syntax.Word
		part [1]syntax.WordPart
	}
	fastDbl struct {
		dq   syntax.DblQuoted
		part [1]syntax.WordPart
	}
	fastParam struct {
		pe  syntax.ParamExp
		lit syntax.Lit
	}
)

// binary returns the statement x op y.
func (ar *fastArena) binary(op syntax.BinCmdOperator, x, y *syntax.Stmt) *syntax.Stmt {
	n := ar.bins.one()
	n.bin.Op, n.bin.X, n.bin.Y = op, x, y
	n.stmt.Cmd = &n.bin
	return &n.stmt
}

// partList returns parts as a node's part list: nil when empty (as mvdan
// has it), one's own when a single part.
func (ar *fastArena) partList(parts []syntax.WordPart, one *[1]syntax.WordPart) []syntax.WordPart {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		one[0] = parts[0]
		return one[:1:1]
	}
	list := ar.parts.take(len(parts))
	copy(list, parts)
	return list
}

// lit returns a literal of value v.
func (ar *fastArena) lit(v string) *syntax.Lit {
	l := ar.lits.one()
	l.Value = v
	return l
}

// fastMark is where the slabs stood before a parse.
type fastMark [11]slabMark

func (ar *fastArena) mark() fastMark {
	return fastMark{
		ar.files.mark(), ar.cmds.mark(), ar.bins.mark(), ar.words.mark(), ar.lits.mark(),
		ar.sqs.mark(), ar.dqs.mark(), ar.sptrs.mark(), ar.wptrs.mark(), ar.parts.mark(),
		ar.params.mark(),
	}
}

// undo frees what a failed parse took since m.
func (ar *fastArena) undo(m fastMark) {
	ar.files.undo(m[0])
	ar.cmds.undo(m[1])
	ar.bins.undo(m[2])
	ar.words.undo(m[3])
	ar.lits.undo(m[4])
	ar.sqs.undo(m[5])
	ar.dqs.undo(m[6])
	ar.sptrs.undo(m[7])
	ar.wptrs.undo(m[8])
	ar.parts.undo(m[9])
	ar.params.undo(m[10])
}

// reset frees every node, once no AST built from ar is referenced.
func (ar *fastArena) reset() {
	ar.undo(fastMark{})
	ar.list = keepScratch(ar.list)
	ar.argv = keepScratch(ar.argv)
	ar.wparts = keepScratch(ar.wparts)
	ar.dparts = keepScratch(ar.dparts)
}

// keepScratch returns s emptied and zeroed for the next analysis, or nil
// when it grew beyond slabKeep.
func keepScratch[T any](s []T) []T {
	if cap(s) > slabKeep {
		return nil
	}
	clear(s[:cap(s)])
	return s[:0]
}

// slab hands out zeroed elements; buf[n:] is always zero.
type slab[T any] struct {
	buf []T
	n   int
	gen int // bumped when buf is replaced
}

// slabMark is a position in a slab.
type slabMark struct{ gen, n int }

// slabKeep bounds the slab length kept across analyses.
const slabKeep = 1 << 10

func (s *slab[T]) take(k int) []T {
	if s.n+k > len(s.buf) {
		s.buf = make([]T, max(16, 2*len(s.buf), k))
		s.n = 0
		s.gen++
	}
	out := s.buf[s.n : s.n+k : s.n+k]
	s.n += k
	return out
}

func (s *slab[T]) one() *T { return &s.take(1)[0] }

func (s *slab[T]) mark() slabMark { return slabMark{s.gen, s.n} }

// undo zeroes what was taken since m. A slab replaced since m only holds
// elements taken since m.
func (s *slab[T]) undo(m slabMark) {
	if m.gen != s.gen {
		m.n = 0
	}
	clear(s.buf[m.n:s.n])
	s.n = m.n
	if m.n == 0 && len(s.buf) > slabKeep {
		s.buf = nil
	}
}
