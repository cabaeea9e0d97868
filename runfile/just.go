package runfile

import (
	"path"
	"strings"
)

// A justfile (just, casey/just): recipes are a header line at column 0,
// "[@]name [params...]: [deps...] [&& deps...]", then indented lines.
// Each line runs in its own shell (sh -cu), unless the recipe is a
// shebang recipe (its first line #!...) or a [script] recipe, which run
// whole. `just` runs the first recipe, `just NAME...` the named ones,
// each after its dependencies.

// justRecipe is one recipe of a justfile.
type justRecipe struct {
	name    string
	params  []string
	deps    []string // before and after (&&): both run
	body    []string
	script  bool // [script] attribute: the body runs whole
	private bool
}

// justfile is what was read of one justfile.
type justfile struct {
	vars    map[string]string
	recipes []justRecipe
	aliases map[string]string
	parse   []string // backtick assignments: run whenever the file is read
	shell   string   // "sh", "python"..., "" when set shell names an interpreter it does not know
	unknown string
}

func (j *justfile) fail(why string) {
	if j.unknown == "" {
		j.unknown = why
	}
}

// justNames are the file names just looks for (case-insensitively).
func isJustfile(base string) bool {
	b := strings.ToLower(base)
	return b == "justfile" || b == ".justfile"
}

// justUnits reads a justfile and returns the recipes the named ones run
// with their dependencies (all recipes when all is set, the first recipe
// when names is empty).
func justUnits(file, dir, content string, names []string, all bool) ([]Unit, string) {
	j := &justfile{vars: map[string]string{}, aliases: map[string]string{}, shell: "sh"}
	j.read(content)
	var units []Unit
	for i, code := range j.parse {
		units = append(units, Unit{File: file, Part: "backtick " + itoa(i+1), Lang: "sh", Code: code, Dir: dir})
	}
	var order []int
	switch {
	case all:
		for i := range j.recipes {
			order = append(order, i)
		}
	case len(names) == 0:
		if len(j.recipes) > 0 {
			order = j.follow([]string{j.recipes[0].name})
		}
	default:
		order = j.follow(names)
	}
	for _, i := range order {
		if len(units) >= MaxUnits {
			j.fail(file + " has more than " + itoa(MaxUnits) + " recipes to read")
			break
		}
		if u, ok := j.unit(file, dir, &j.recipes[i]); ok {
			units = append(units, u)
		}
	}
	return units, j.unknown
}

// unit is a recipe's code: a shebang or [script] recipe whole, else each
// line in its own shell.
func (j *justfile) unit(file, dir string, r *justRecipe) (Unit, bool) {
	if len(r.body) == 0 {
		return Unit{}, false
	}
	u := Unit{File: file, Part: "recipe " + r.name, Lang: "sh", Dir: dir}
	if strings.HasPrefix(r.body[0], "#!") || r.script {
		body := j.interpolate(strings.Join(r.body, "\n"), r)
		lang := langOf(file, body)
		if r.script && !strings.HasPrefix(r.body[0], "#!") {
			lang = j.shell
		}
		if lang == "" {
			j.fail(file + " recipe " + r.name + " runs with an interpreter the analyser does not read")
			return Unit{}, false
		}
		u.Lang, u.Code = lang, body
		return u, true
	}
	if j.shell == "" {
		j.fail(file + " sets a shell the analyser does not read")
		return Unit{}, false
	}
	var b strings.Builder
	for _, line := range r.body {
		line = strings.TrimLeft(line, "@- \t")
		if j.shell != "sh" {
			b.WriteString(line)
			b.WriteString("\n")
			continue
		}
		b.WriteString("(\n")
		b.WriteString(j.interpolate(line, r))
		b.WriteString("\n)\n")
	}
	u.Lang, u.Code = j.shell, b.String()
	if j.shell != "sh" {
		u.Code = j.interpolate(u.Code, r)
	}
	return u, true
}

// read parses the justfile's lines.
func (j *justfile) read(content string) {
	lines := strings.Split(content, "\n")
	var cur *justRecipe
	script, private := false, false
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\r")
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			if cur != nil {
				text := strings.TrimLeft(line, " \t")
				for strings.HasSuffix(text, "\\") && i+1 < len(lines) { // the shell joins it
					i++
					text += "\n" + strings.TrimLeft(strings.TrimSuffix(lines[i], "\r"), " \t")
				}
				if len(cur.body) == 0 && strings.TrimSpace(text) == "" {
					continue
				}
				cur.body = append(cur.body, text)
				continue
			}
			if strings.TrimSpace(line) == "" || len(j.recipes) > 0 {
				continue // a continuation of a setting, or of a header not read
			}
			// An indented line before any recipe: an edit's fragment.
			j.recipes = append(j.recipes, justRecipe{name: "(no recipe)"})
			cur = &j.recipes[len(j.recipes)-1]
			cur.body = append(cur.body, strings.TrimLeft(line, " \t"))
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue // a blank line inside a recipe does not end it
		}
		cur = nil
		text := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "["):
			attr := strings.ToLower(text)
			script = script || strings.HasPrefix(attr, "[script")
			private = private || strings.Contains(attr, "private")
			continue
		}
		cur = j.statement(text)
		if cur != nil {
			cur.script, cur.private = script, private
		}
		script, private = false, false
	}
}

// statement reads a line at column 0: a setting, an assignment, an
// import, or a recipe header (the recipe it starts is returned).
func (j *justfile) statement(text string) *justRecipe {
	word, rest, _ := strings.Cut(text, " ")
	switch word {
	case "set":
		j.setting(strings.TrimSpace(rest))
		return nil
	case "import", "mod":
		j.fail("it imports another justfile (" + clip(text) + ")")
		return nil
	case "alias":
		name, target, ok := strings.Cut(rest, ":=")
		if ok {
			j.aliases[strings.TrimSpace(name)] = strings.TrimSpace(target)
		}
		return nil
	case "export":
		text = strings.TrimSpace(rest)
	}
	if name, val, ok := justAssignment(text); ok {
		j.assign(name, val)
		return nil
	}
	return j.header(text)
}

// justAssignment splits "NAME := VALUE".
func justAssignment(text string) (name, val string, ok bool) {
	i := strings.Index(text, ":=")
	if i <= 0 {
		return "", "", false
	}
	name = strings.TrimSpace(text[:i])
	if !justName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(text[i+2:]), true
}

func justName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// assign records a variable: a string literal is its value, a backtick
// is code run when the file is read, anything else an unknown word.
func (j *justfile) assign(name, val string) {
	switch {
	case len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] && !strings.Contains(val[1:len(val)-1], string(val[0])):
		j.vars[name] = val[1 : len(val)-1]
	case strings.HasPrefix(val, "`"):
		j.parse = append(j.parse, strings.Trim(val, "`"))
		j.vars[name] = "${" + justVar(name) + "}"
	default:
		j.vars[name] = "${" + justVar(name) + "}"
	}
}

// justVar is a shell variable name standing for a just variable (an
// unknown word to the analyser).
func justVar(name string) string { return "JUST_" + strings.ReplaceAll(name, "-", "_") }

// setting reads "set shell := [...]" (and script-interpreter); other
// settings change nothing the analyser reads.
func (j *justfile) setting(s string) {
	name, val, ok := strings.Cut(s, ":=")
	name = strings.TrimSpace(name)
	if !ok || name != "shell" && name != "windows-shell" {
		return
	}
	if name == "windows-shell" {
		return
	}
	val = strings.Trim(strings.TrimSpace(val), "[]")
	prog, _, _ := strings.Cut(val, ",")
	prog = path.Base(strings.Trim(strings.TrimSpace(prog), `"'`))
	switch l := interpLang(prog); l {
	case "sh", "python", "node", "ruby", "perl":
		j.shell = l
	default:
		j.shell = ""
	}
}

// header reads "[@]name params...: deps... [&& deps...]".
func (j *justfile) header(text string) *justRecipe {
	colon := strings.IndexByte(text, ':')
	if colon < 0 || strings.HasPrefix(text[colon:], ":=") {
		j.fail("a line it cannot read: " + clip(text))
		return nil
	}
	head := strings.Fields(strings.TrimPrefix(text[:colon], "@"))
	if len(head) == 0 || !justName(head[0]) {
		j.fail("a line it cannot read: " + clip(text))
		return nil
	}
	if len(j.recipes) >= maxRecipeLines {
		j.fail("more than " + itoa(maxRecipeLines) + " recipes")
		return nil
	}
	r := justRecipe{name: head[0]}
	for _, p := range head[1:] {
		p, _, _ = strings.Cut(p, "=")
		r.params = append(r.params, strings.TrimLeft(p, "+*$"))
	}
	rest := text[colon+1:]
	for _, w := range strings.Fields(parens.Replace(rest)) {
		if w == "&&" || w == "(" || w == ")" {
			continue
		}
		if justName(w) {
			r.deps = append(r.deps, w)
		}
	}
	j.recipes = append(j.recipes, r)
	return &j.recipes[len(j.recipes)-1]
}

var parens = strings.NewReplacer("(", " ( ", ")", " ) ")

// interpolate replaces {{ expr }}: a variable known as a literal by its
// value, a parameter or anything else by a shell variable (an unknown
// word). {{{{ is a literal {{.
func (j *justfile) interpolate(s string, r *justRecipe) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if strings.HasPrefix(s[i:], "{{{{") {
			b.WriteString("{{")
			s = s[i+4:]
			continue
		}
		end := strings.Index(s[i+2:], "}}")
		if end < 0 {
			b.WriteString(s[i:])
			return b.String()
		}
		expr := strings.TrimSpace(s[i+2 : i+2+end])
		if v, ok := j.vars[expr]; ok {
			b.WriteString(v)
		} else if justName(expr) {
			b.WriteString("${" + justVar(expr) + "}")
		} else {
			b.WriteString("${PARALLAX_JUST_UNKNOWN}")
		}
		s = s[i+2+end+2:]
	}
}

// follow returns the recipes the names run, dependencies first, each
// once, at most maxTargets.
func (j *justfile) follow(names []string) []int {
	index := map[string]int{}
	for i, r := range j.recipes {
		if _, dup := index[r.name]; !dup {
			index[r.name] = i
		}
	}
	seen := map[string]bool{}
	var order []int
	var visit func(n string, depth int)
	visit = func(n string, depth int) {
		if a, ok := j.aliases[n]; ok {
			n = a
		}
		i, ok := index[n]
		if !ok || seen[n] {
			return
		}
		if len(seen) >= maxTargets || depth > maxTargets {
			j.fail("more than " + itoa(maxTargets) + " recipes to follow")
			return
		}
		seen[n] = true
		for _, d := range j.recipes[i].deps {
			visit(d, depth+1)
		}
		order = append(order, i)
	}
	for _, n := range names {
		visit(n, 0)
	}
	return order
}

// justRuns: just [-f FILE] [-d DIR] [--set K V] [RECIPE [ARGS...]...].
// Words after the first are read as further recipe names (a recipe's
// arguments that name no recipe select nothing).
func justRuns(args []string, cwd string, fs FS) []Target {
	file, dir := "", ""
	var words []string
	unknown := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-f" || a == "--justfile") && i+1 < len(args):
			i++
			file = args[i]
		case strings.HasPrefix(a, "--justfile="):
			file = a[len("--justfile="):]
		case (a == "-d" || a == "--working-directory") && i+1 < len(args):
			i++
			dir = abs(cwd, args[i])
		case a == "--set" && i+2 < len(args):
			i += 2
		case a == "--list" || a == "-l" || a == "--summary" || a == "--show" || a == "-s" ||
			a == "--dump" || a == "--evaluate" || a == "--help" || a == "-h" || a == "--version" ||
			a == "-V" || a == "--fmt" || a == "--init" || a == "--choose" || a == "--variables" || a == "--edit" || a == "-e":
			if a == "--choose" || a == "--evaluate" {
				unknown = true // any recipe; --evaluate runs backticks
				continue
			}
			return nil // lists, shows or edits: runs no recipe
		case strings.HasPrefix(a, "-"):
		case a == "":
			unknown = true
		default:
			words = append(words, a)
		}
	}
	var jf string
	if file != "" {
		jf = abs(cwd, file)
	} else {
		jf = findJustfile(cwd, fs)
	}
	if jf == "" {
		return nil
	}
	if dir == "" {
		dir = path.Dir(jf) // recipes run in the justfile's directory
	}
	t := Target{File: jf, Kind: KindJust, Select: words, Dir: dir}
	if unknown {
		t.Select, t.All = nil, true
	}
	return []Target{t}
}

// findJustfile looks for a justfile in cwd and its parents (as just
// does), at most 16 levels.
func findJustfile(cwd string, fs FS) string {
	d := cwd
	for i := 0; i < 16; i++ {
		for _, n := range []string{"justfile", "Justfile", "JUSTFILE", ".justfile"} {
			if p := path.Join(d, n); fs.Exists(p) {
				return p
			}
		}
		parent := path.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}
