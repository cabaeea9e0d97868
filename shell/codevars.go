package shell

import "strings"

// This file finds what names in inline code stand for: variables assigned
// once (their value is their right-hand side), modules and their members
// under local names (import x as y, from x import y, y = require("x")),
// and network clients held in variables. A name assigned more than once,
// changed in place, or assigned where the scanner cannot tell how, has no
// known value.

// cvar is a variable of inline code.
type cvar struct {
	from, to int  // right-hand side of its one assignment
	n        int  // assignments seen; more than one: unknown
	busy     bool // being evaluated (a cycle is unknown)
	done     bool
	val      string
}

// declWords introduce a declaration before a name.
var declWords = map[string]bool{"my": true, "our": true, "local": true, "const": true, "let": true, "var": true}

// splitHead splits a member name at its first separator (. :: ->):
// "os.path.join" is "os" and ".path.join".
func splitHead(name string) (head, rest string) {
	for i := 1; i < len(name); i++ {
		switch {
		case name[i] == '.', name[i] == ':' && i+1 < len(name) && name[i+1] == ':',
			name[i] == '-' && i+1 < len(name) && name[i+1] == '>':
			return name[:i], name[i:]
		}
	}
	return name, ""
}

// stmtStart reports whether toks[i] starts a statement (a declaration
// word may come before it).
func (s *codeScan) stmtStart(i int) bool {
	if i > 0 && s.toks[i-1].kind == 'i' && declWords[s.toks[i-1].s] && !s.toks[i].nl {
		i--
	}
	if i == 0 || s.toks[i].nl {
		return true
	}
	p := s.toks[i-1]
	if p.kind == 'i' {
		switch p.s {
		case "then", "do", "else", "begin", "BEGIN", "END":
			return true
		}
		return false
	}
	switch p.s {
	case ";", "{", "}":
		return true
	case ":":
		return s.lang == "python"
	case ")":
		return s.lang == "node" || s.lang == "php"
	}
	return false
}

// stmtEnd returns the end of the expression starting at toks[from]: a
// statement separator, a line break, a comma or a closing bracket at its
// level, or a statement modifier (perl, ruby).
func (s *codeScan) stmtEnd(from int) int {
	depth := 0
	for j := from; j < len(s.toks); j++ {
		t := s.toks[j]
		if j > from && t.nl && depth == 0 {
			return j
		}
		switch {
		case t.kind == 'p' && (t.s == "(" || t.s == "[" || t.s == "{"):
			depth++
		case t.kind == 'p' && (t.s == ")" || t.s == "]" || t.s == "}"):
			depth--
			if depth < 0 {
				return j
			}
		case depth == 0 && t.kind == 'p' && (t.s == ";" || t.s == ","):
			return j
		case depth == 0 && t.kind == 'i' && (s.lang == "perl" || s.lang == "ruby") &&
			(t.s == "if" || t.s == "unless" || t.s == "or" || t.s == "and" || t.s == "while" || t.s == "until"):
			return j
		}
	}
	return len(s.toks)
}

// assignOp reports an assignment operator after toks[i] and the index of
// the first token of its right-hand side; plain is false for every form
// that changes the variable in place (+=, .=, ||=, ++, =~, <<).
func (s *codeScan) assignOp(i int) (rhs int, plain, any bool) {
	at := func(k int) string {
		if k < len(s.toks) && s.toks[k].kind == 'p' {
			return s.toks[k].s
		}
		return ""
	}
	n1, n2 := at(i+1), at(i+2)
	switch {
	case n1 == "=" && n2 != "=" && n2 != "~" && n2 != ">":
		return i + 2, true, true
	case s.lang == "r" && n1 == "<" && n2 == "-":
		return i + 3, true, true
	case n1 == "=" && n2 == "~", n1 == "+" && n2 == "+", n1 == "-" && n2 == "-", n1 == "<" && n2 == "<" && s.lang == "ruby":
		return 0, false, true
	case n1 != "" && strings.Contains("+-*/%&|^.~?:<>", n1):
		k := i + 1
		for at(k) != "" && strings.Contains("+-*/%&|^.~?:<>", at(k)) {
			k++
		}
		if at(k) == "=" && at(k+1) != "=" && !(k == i+2 && (n1 == "<" || n1 == ">")) {
			return 0, false, true
		}
	case n1 == "[":
		// x[k] = v changes x (a string, in perl, ruby and php).
		if k := s.match(i+1, len(s.toks)); at(k+1) == "=" && at(k+2) != "=" {
			return 0, false, true
		}
	}
	return 0, false, false
}

// assignments records the variables of the code.
func (s *codeScan) assignments() {
	for i, t := range s.toks {
		if t.kind != 'i' || t.s[0] == '.' || s.shadowed(i) {
			continue
		}
		rhs, plain, any := s.assignOp(i)
		if !any {
			if s.mutates(i) {
				s.setVar(t.s, 0, 0, false)
			}
			continue
		}
		s.skip[i] = true
		s.setVar(t.s, rhs, s.stmtEnd(rhs), plain && s.stmtStart(i))
	}
	s.binders()
}

// mutates reports whether toks[i] is a variable changed in place by a
// method or a function (ruby's x.sub!, x.replace(...), perl's chomp($x)).
func (s *codeScan) mutates(i int) bool {
	t := s.toks[i]
	if s.lang == "ruby" {
		if _, m := splitHead(t.s); m != "" {
			if i+1 < len(s.toks) && s.toks[i+1].s == "!" && (i+2 >= len(s.toks) || s.toks[i+2].s != "=") {
				return true
			}
			switch m {
			case ".replace", ".concat", ".insert", ".prepend", ".clear", ".force_encoding", ".setbyte", ".squeeze!":
				return true
			}
		}
	}
	if i > 0 && s.toks[i-1].s == "\\" || i > 0 && s.toks[i-1].s == "&" && s.lang == "php" {
		return true // a reference to it
	}
	if i > 1 && s.toks[i-1].s == "(" && s.lang == "perl" {
		switch s.toks[i-2].s {
		case "chomp", "chop", "substr", "read", "sysread", "recv", "undef":
			return true
		}
	}
	return false
}

// binders finds the other ways a name gets a value, each of which makes
// it unknown: parameters (def f(p), function(p), lambda p:, (p) => ...,
// |p|), loop variables (for p in, foreach ... as $p), with/except/import
// ... as p, and the targets of destructuring (a, b = ...; [a, b] = ...;
// my ($a) = ...; list($a) = ...).
func (s *codeScan) binders() {
	for i, t := range s.toks {
		if s.shadowed(i) {
			continue
		}
		switch {
		case t.kind == 'i' && (t.s == "def" || t.s == "function" || t.s == "fn" || t.s == "sub" || t.s == "lambda"):
			s.bindParams(i + 1)
		case t.kind == 'i' && (t.s == "for" || t.s == "foreach"):
			j := i + 1
			if j < len(s.toks) && s.toks[j].s == "(" {
				j++ // for (const x of y), foreach ($a as $x)
			}
			s.bindUntil(j, "in", "of", "=", ":", "(", ")", "{", "do", ";", "as")
		case t.kind == 'i' && (t.s == "as" || t.s == "catch" || t.s == "rescue" || t.s == "global" || t.s == "nonlocal"):
			s.bindUntil(i+1, ";", ":", ")", "{")
		case t.kind == 'p' && t.s == "=>" && s.lang == "node" && i > 0:
			if s.toks[i-1].s == ")" {
				s.bindRange(s.matchBack(i-1), i)
			} else {
				s.bindRange(i-1, i)
			}
		case t.kind == 'p' && t.s == "|" && s.lang == "ruby" && i > 0 && (s.toks[i-1].s == "{" || s.toks[i-1].s == "do"):
			s.bindUntil(i+1, "|")
		case t.kind == 'p' && t.s == "=" && i > 1 && s.destructures(i):
			s.bindRange(s.lhsStart(i), i)
		}
	}
}

// shadowed reports a token of the code lexed a second way.
func (s *codeScan) shadowed(i int) bool { return i >= s.shadow[0] && i < s.shadow[1] }

// bindParams marks the parameters of a function defined at toks[i]
// (after its name, if any).
func (s *codeScan) bindParams(i int) {
	if i < len(s.toks) && s.toks[i].kind == 'i' && s.toks[i].s != "(" {
		s.bindRange(i, i+1) // def NAME: the function's name is bound too
		i++
	}
	switch {
	case i < len(s.toks) && s.toks[i].s == "(":
		s.bindRange(i, s.match(i, len(s.toks)))
	default:
		s.bindUntil(i, ":", "{", ";")
	}
}

// bindUntil marks the names from toks[i] to the first stop word.
func (s *codeScan) bindUntil(i int, stops ...string) {
	for j := i; j < len(s.toks) && j < i+64; j++ {
		for _, st := range stops {
			if s.toks[j].s == st {
				s.bindRange(i, j)
				return
			}
		}
	}
}

// bindRange marks every name in toks[from:to] as bound elsewhere than by
// a plain assignment.
func (s *codeScan) bindRange(from, to int) {
	for j := max(from, 0); j < to && j < len(s.toks); j++ {
		if t := s.toks[j]; t.kind == 'i' && t.s[0] != '.' {
			s.setVar(t.s, 0, 0, false)
		}
	}
}

// destructures reports whether the plain "=" at toks[i] assigns more than
// one name at once, or a name inside brackets.
func (s *codeScan) destructures(i int) bool {
	if n := s.toks[i+1 : min(i+2, len(s.toks))]; len(n) > 0 && (n[0].s == "=" || n[0].s == "~" || n[0].s == ">") {
		return false
	}
	if p := s.toks[i-1]; p.kind == 'p' && strings.Contains("+-*/%&|^.~?:<>!=", p.s) {
		return false // an operator: +=, ==, <=
	}
	from := s.lhsStart(i)
	if from > 0 && s.toks[from-1].kind == 'p' && (s.toks[from-1].s == "(" || s.toks[from-1].s == "[" || s.toks[from-1].s == ",") {
		return false // inside a call: f(a, k=v) names an argument
	}
	return i-from > 1 && !(i-from == 2 && s.toks[from].kind == 'i' && declWords[s.toks[from].s])
}

// lhsStart returns where the statement (or the bracketed group) holding
// the "=" at toks[i] starts.
func (s *codeScan) lhsStart(i int) int {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		t := s.toks[j]
		if t.kind == 'p' {
			switch t.s {
			case ")", "]", "}":
				depth++
			case "(", "[", "{":
				if depth--; depth < 0 {
					return j + 1
				}
			case ";":
				if depth == 0 {
					return j + 1
				}
			case ",":
				if depth == 0 && s.lang == "node" {
					return j + 1 // let a = 1, b = 2
				}
			}
		}
		if t.nl && depth == 0 {
			return j
		}
	}
	return 0
}

// setVar records one assignment of name (ok: a plain one at the start of
// a statement, whose right-hand side is toks[from:to]).
func (s *codeScan) setVar(name string, from, to int, ok bool) {
	head, _ := splitHead(name)
	if head != name {
		return // an attribute: x.y = v
	}
	if specialVar(name) || s.lang == "awk" && name[0] == '$' {
		ok = false
	}
	v := s.vars[name]
	if v == nil {
		v = &cvar{from: from, to: to}
		s.vars[name] = v
		s.varOrder = append(s.varOrder, name)
	}
	v.n++
	if !ok {
		v.n += 2
	}
}

// specialVar reports names the interpreter sets by itself: perl's $_ and
// $1, awk's fields, ruby's $~.
func specialVar(name string) bool {
	if len(name) < 2 || name[0] != '$' {
		return false
	}
	c := name[1]
	return c == '_' && len(name) == 2 || c >= '0' && c <= '9' || strings.IndexByte("~&`'+!@/\\,;.", c) >= 0
}

// varVal is the value of a variable assigned once.
func (s *codeScan) varVal(name string) (string, bool) {
	v := s.vars[name]
	if v == nil {
		return "", false
	}
	if v.n != 1 || s.varsUnknown || v.busy {
		return unk, true
	}
	if !v.done {
		v.busy = true
		v.val = s.val(v.from, v.to)
		v.busy, v.done = false, true
	}
	return v.val, true
}

// rhsIdent returns the single name a variable was assigned (x = y), or
// "".
func (s *codeScan) rhsIdent(name string) (int, bool) {
	v := s.vars[name]
	if v == nil || v.n != 1 || v.to != v.from+1 || s.toks[v.from].kind != 'i' {
		return 0, false
	}
	return v.from, true
}
