package runfile

import "strings"

// unknownWord stands for what make would put where the reader cannot
// tell: a shell variable nobody sets, an unknown word to the analyser.
const unknownWord = "${PARALLAX_MAKE_UNKNOWN}"

// expand expands make references in s: $$ is $, $(VAR) ${VAR} $V are the
// variable's value (expanded in turn), $@ $< $^ $+ come from r, and
// $(shell CMD) records CMD as code run when the makefile is read.
// Functions and variables it cannot expand become a shell variable (an
// unknown word). Every byte produced is taken from m.budget.
func (m *makefile) expand(s string, r *rule, depth int) string {
	if !strings.Contains(s, "$") {
		return s
	}
	if depth > maxExpandDepth || m.budget < 0 {
		m.fail("variable references nest deeper than " + itoa(maxExpandDepth))
		return unknownWord
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch n := s[i]; n {
		case '$':
			b.WriteByte('$')
		case '(', '{':
			end := closing(s, i)
			if end < 0 {
				b.WriteString(unknownWord)
				i = len(s)
				continue
			}
			b.WriteString(m.reference(s[i+1:end], r, depth))
			i = end
		default:
			b.WriteString(m.variable(string(n), r, depth))
		}
		if b.Len() > m.budget {
			m.budget = -1
			return unknownWord
		}
	}
	m.budget -= b.Len()
	return b.String()
}

// closing returns the index of the bracket closing s[open], or -1.
func closing(s string, open int) int {
	o, c := s[open], byte(')')
	if o == '{' {
		c = '}'
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case c:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// reference expands the inside of $(...): a variable or a function.
func (m *makefile) reference(in string, r *rule, depth int) string {
	if fn, arg, ok := strings.Cut(in, " "); ok && !strings.Contains(fn, "$") {
		switch fn {
		case "shell":
			m.parse = append(m.parse, arg)
			return "${PARALLAX_MAKE_SHELL}"
		case "strip":
			return strings.Join(strings.Fields(m.expand(arg, r, depth+1)), " ")
		case "eval", "file", "call", "value", "origin", "flavor", "guile", "let", "foreach":
			if fn == "eval" || fn == "file" || fn == "guile" {
				m.fail("it uses $(" + fn + " ...)")
			}
		}
		return unknownWord
	}
	if name, _, ok := strings.Cut(in, ":"); ok && !strings.ContainsAny(name, "$") { // $(VAR:.c=.o)
		in = name
	}
	return m.variable(m.expand(in, r, depth+1), r, depth)
}

// variable expands one variable by name.
func (m *makefile) variable(name string, r *rule, depth int) string {
	if r != nil {
		switch name {
		case "@":
			if len(r.targets) > 0 {
				return r.targets[0]
			}
		case "<":
			if len(r.prereqs) > 0 {
				return r.prereqs[0]
			}
			return ""
		case "^", "+", "?":
			return strings.Join(r.prereqs, " ")
		}
	}
	if v, ok := m.vars[name]; ok {
		return m.expand(v, r, depth+1)
	}
	if v, ok := makeDefaults[name]; ok {
		return v
	}
	if shellName(name) {
		return "${" + name + "}"
	}
	return unknownWord
}

// shellName reports whether name is a valid shell variable name.
func shellName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
