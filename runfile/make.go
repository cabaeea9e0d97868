package runfile

import (
	"strings"
)

// Bounds of reading a makefile.
const (
	maxExpand      = 256 << 10 // bytes all expansions of one makefile may produce
	maxExpandDepth = 16        // nesting of variable references
	maxTargets     = 256       // targets followed from the goals
	maxRecipeLines = 4096
)

// rule is one rule of a makefile.
type rule struct {
	targets, prereqs []string
	recipe           []string
}

// makefile is what was read of one makefile.
type makefile struct {
	vars    map[string]string
	rules   []rule
	parse   []string // code run when the makefile is read ($(shell), !=)
	unknown string
	budget  int // expansion bytes left
}

// makeDefaults are make's built-in variables recipes use.
var makeDefaults = map[string]string{
	"MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as", "LD": "ld",
	"RM": "rm -f", "FC": "f77", "LEX": "lex", "YACC": "yacc", "SHELL": "/bin/sh", "MAKEFLAGS": "",
	"CFLAGS": "", "CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "ARFLAGS": "rv",
}

func (m *makefile) fail(why string) {
	if m.unknown == "" {
		m.unknown = why
	}
}

// makeUnits reads a makefile and returns the recipes the goals run (all
// rules' when all is set; the default goal when goals is empty).
func makeUnits(file, dir, content string, goals []string, vars map[string]string, all bool) ([]Unit, string) {
	m := &makefile{vars: map[string]string{"CURDIR": dir}, budget: maxExpand}
	m.read(content)
	for k, v := range vars { // command-line variables override the file's
		m.vars[k] = v
	}
	var units []Unit
	for i, code := range m.parse {
		units = append(units, Unit{File: file, Part: "parse-time shell " + itoa(i+1), Lang: "sh",
			Code: m.expand(code, nil, 0), Dir: dir})
	}
	var order []int
	if all {
		for i := range m.rules {
			order = append(order, i)
		}
	} else {
		if len(goals) == 0 {
			goals = m.defaultGoal()
		}
		order = m.follow(goals)
	}
	for _, i := range order {
		r := &m.rules[i]
		if len(r.recipe) == 0 {
			continue
		}
		if len(units) >= MaxUnits {
			m.fail(file + " has more than " + itoa(MaxUnits) + " recipes to read")
			break
		}
		name := "(no target)"
		if len(r.targets) > 0 {
			name = r.targets[0]
		}
		var b strings.Builder
		for _, line := range r.recipe {
			// Each recipe line runs in its own shell.
			b.WriteString("(\n")
			b.WriteString(m.expand(stripPrefix(line), r, 0))
			b.WriteString("\n)\n")
		}
		units = append(units, Unit{File: file, Part: "target " + name, Lang: "sh", Code: b.String(), Dir: dir})
	}
	if m.budget < 0 {
		m.fail(file + ": variable expansion exceeds " + itoa(maxExpand>>10) + " KiB")
	}
	return units, m.unknown
}

// stripPrefix drops the recipe prefixes @ - + (and blanks between).
func stripPrefix(line string) string {
	return strings.TrimLeft(line, "@-+ \t")
}

// read parses the makefile's lines into variables and rules.
func (m *makefile) read(content string) {
	lines := strings.Split(content, "\n")
	var cur *rule
	recipeLines := 0
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		if strings.HasPrefix(line, "\t") && cur != nil || strings.HasPrefix(line, "\t") && len(m.rules) == 0 {
			if cur == nil { // a recipe before any rule: an edit's fragment
				m.rules = append(m.rules, rule{})
				cur = &m.rules[len(m.rules)-1]
			}
			text := line[1:]
			for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
				i++
				text += "\n" + strings.TrimPrefix(strings.TrimSuffix(lines[i], "\r"), "\t")
			}
			if recipeLines++; recipeLines > maxRecipeLines {
				m.fail("more than " + itoa(maxRecipeLines) + " recipe lines")
				return
			}
			cur.recipe = append(cur.recipe, text)
			continue
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		text := strings.TrimSpace(stripComment(line))
		if text == "" {
			continue
		}
		if name, ok := defineName(text); ok {
			var body []string
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "endef" {
				i++
				body = append(body, lines[i])
			}
			i++
			m.vars[name] = strings.Join(body, "\n")
			cur = nil
			continue
		}
		cur = m.statement(text)
	}
}

// stripComment cuts a # comment (not an escaped \#).
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] != '\\') {
			return s[:i]
		}
	}
	return s
}

// defineName reports a "define NAME" line.
func defineName(text string) (string, bool) {
	for _, p := range []string{"export ", "override ", "private "} {
		text = strings.TrimPrefix(text, p)
	}
	if !strings.HasPrefix(text, "define ") {
		return "", false
	}
	f := strings.Fields(text[len("define "):])
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

// statement reads one logical line that is not a recipe: a directive, an
// assignment or a rule. It returns the rule recipes now belong to.
func (m *makefile) statement(text string) *rule {
	word, rest, _ := strings.Cut(text, " ")
	switch word {
	case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport", ".PHONY:":
		return nil // both branches of a conditional are read
	case "include", "-include", "sinclude":
		m.fail("it includes another makefile (" + clip(rest) + ")")
		return nil
	case "export", "override", "private":
		if rest == "" {
			return nil
		}
		text = rest
	}
	if name, op, val, ok := assignment(text); ok {
		m.assign(name, op, val)
		return nil
	}
	return m.ruleLine(text)
}

// assignment splits NAME OP VALUE (OP one of = := ::= ?= += !=) when the
// line is one: its first = comes before any rule colon.
func assignment(text string) (name, op, val string, ok bool) {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ':':
			if depth == 0 && !strings.HasPrefix(text[i:], ":=") && !strings.HasPrefix(text[i:], "::=") {
				return "", "", "", false
			}
		case '=':
			if depth != 0 {
				continue
			}
			j := i
			for j > 0 && strings.IndexByte(":?+!", text[j-1]) >= 0 {
				j--
			}
			name = strings.TrimSpace(text[:j])
			if name == "" || strings.ContainsAny(name, " \t") {
				return "", "", "", false
			}
			return name, text[j : i+1], strings.TrimSpace(text[i+1:]), true
		}
	}
	return "", "", "", false
}

func (m *makefile) assign(name, op, val string) {
	if name == ".RECIPEPREFIX" {
		m.fail("it changes the recipe prefix")
		return
	}
	switch op {
	case "+=":
		if old, ok := m.vars[name]; ok {
			val = old + " " + val
		}
	case "?=":
		if _, ok := m.vars[name]; ok {
			return
		}
	case ":=", "::=":
		val = strings.ReplaceAll(m.expand(val, nil, 0), "$", "$$")
	case "!=":
		m.parse = append(m.parse, val) // runs now, in a shell
		val = "${PARALLAX_MAKE_SHELL}"
	}
	m.vars[name] = val
}

// ruleLine reads "targets: prereqs [; recipe]".
func (m *makefile) ruleLine(text string) *rule {
	head, recipe, hasRecipe := strings.Cut(text, ";")
	i := strings.IndexByte(head, ':')
	if i < 0 {
		m.fail("a line it cannot read: " + clip(text))
		return nil
	}
	targets := strings.Fields(m.expand(head[:i], nil, 0))
	pre := strings.TrimLeft(head[i+1:], ":")
	if j := strings.LastIndexByte(pre, ':'); j >= 0 { // static pattern rule: targets: pattern: prereqs
		pre = pre[j+1:]
	}
	if _, _, val, ok := assignment(pre); ok { // a target-specific variable: read as a global one
		name, op, _, _ := assignment(pre)
		m.assign(name, op, val)
		return nil
	}
	var prereqs []string
	for _, p := range strings.Fields(m.expand(pre, nil, 0)) {
		if p != "|" {
			prereqs = append(prereqs, p)
		}
	}
	m.rules = append(m.rules, rule{targets: targets, prereqs: prereqs})
	r := &m.rules[len(m.rules)-1]
	if hasRecipe && strings.TrimSpace(recipe) != "" {
		r.recipe = append(r.recipe, strings.TrimSpace(recipe))
	}
	return r
}

// defaultGoal is .DEFAULT_GOAL, else the first target of the first rule
// that is not special (.PHONY) nor a pattern.
func (m *makefile) defaultGoal() []string {
	if g := strings.TrimSpace(m.expand(m.vars[".DEFAULT_GOAL"], nil, 0)); g != "" {
		return strings.Fields(g)
	}
	for _, r := range m.rules {
		for _, t := range r.targets {
			if t != "" && (t[0] != '.' || strings.Contains(t, "/")) && !strings.Contains(t, "%") {
				return []string{t}
			}
		}
	}
	return nil
}

// follow returns the rules the goals need, prerequisites first, each
// once, at most maxTargets targets.
func (m *makefile) follow(goals []string) []int {
	seen := map[string]bool{}
	used := map[int]bool{}
	var order []int
	var visit func(t string, depth int)
	visit = func(t string, depth int) {
		if seen[t] {
			return
		}
		if len(seen) >= maxTargets || depth > maxTargets {
			m.fail("more than " + itoa(maxTargets) + " targets to follow")
			return
		}
		seen[t] = true
		rules := m.rulesFor(t)
		for _, i := range rules {
			for _, p := range m.rules[i].prereqs {
				visit(p, depth+1)
			}
		}
		for _, i := range rules {
			if !used[i] {
				used[i] = true
				order = append(order, i)
			}
		}
	}
	for _, g := range goals {
		visit(g, 0)
	}
	return order
}

// rulesFor lists the rules that make t: the explicit ones, else the
// pattern rules whose pattern matches it.
func (m *makefile) rulesFor(t string) []int {
	var out, patterns []int
	for i, r := range m.rules {
		for _, x := range r.targets {
			switch {
			case x == t:
				out = append(out, i)
			case strings.Contains(x, "%") && patternMatch(x, t):
				patterns = append(patterns, i)
			}
		}
	}
	if len(out) == 0 {
		return patterns
	}
	return out
}

func patternMatch(pat, s string) bool {
	pre, suf, _ := strings.Cut(pat, "%")
	return len(s) >= len(pre)+len(suf) && strings.HasPrefix(s, pre) && strings.HasSuffix(s, suf)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
