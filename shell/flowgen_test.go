package shell

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// This file generates small random bash programs whose effect depends on
// control flow, for the differential test in flowrand_test.go. Every
// program starts by setting d and e to a directory inside the test's
// workspace or home and never makes either empty, so that "$d/mark" is
// always a path inside the temporary root; loops are bounded (a counter
// bumped first in the body, or lines read from a two-line file); exit
// appears only inside ( ), return only in functions, break and continue
// only in loops, none of them inside an assigned $( ).

// gnode is a statement of a generated program: text around lists of
// statements (parts has one more element than kids).
type gnode struct {
	parts  []string
	kids   [][]*gnode
	group  []bool // kids[i] is one operand of && or ||: a group unless one simple command
	bg     bool   // ends with &
	simple bool   // one simple command
	fixed  bool   // kept by the shrinker (d's initialisation, the final touch)
}

// gprog is a generated program: one top-level statement per line (the
// first sets d and e, the last touches the mark).
type gprog struct {
	lines []*gnode
}

// String renders the program as bash code.
func (p *gprog) String() string {
	var sb strings.Builder
	bg := false
	for i, n := range p.lines {
		if i == len(p.lines)-1 && bg {
			sb.WriteString("wait\n") // background jobs are done before the end
		}
		n.render(&sb)
		if n.bg {
			sb.WriteString(" &")
		}
		sb.WriteByte('\n')
		bg = bg || n.hasBg()
	}
	return sb.String()
}

func (n *gnode) hasBg() bool {
	if n.bg {
		return true
	}
	for _, k := range n.kids {
		for _, x := range k {
			if x.hasBg() {
				return true
			}
		}
	}
	return false
}

func (n *gnode) render(sb *strings.Builder) {
	for i, p := range n.parts {
		sb.WriteString(p)
		if i >= len(n.kids) {
			continue
		}
		k := n.kids[i]
		switch {
		case i < len(n.group) && n.group[i] && len(k) == 1 && k[0].simple && !k[0].bg:
			k[0].render(sb)
		case i < len(n.group) && n.group[i]:
			sb.WriteString("{ ")
			renderList(sb, k)
			sb.WriteString("}")
		default:
			renderList(sb, k)
		}
	}
}

// renderList writes statements each with its terminator; an empty list
// is ":" (bash refuses an empty body).
func renderList(sb *strings.Builder, list []*gnode) {
	if len(list) == 0 {
		sb.WriteString(": ")
		return
	}
	for _, n := range list {
		n.render(sb)
		if n.bg {
			sb.WriteString(" & ")
		} else {
			sb.WriteString("; ")
		}
	}
}

// nodes lists the statements a shrinker may delete, outermost first.
func (p *gprog) nodes() []*gnode {
	var out []*gnode
	var walk func([]*gnode)
	walk = func(list []*gnode) {
		for _, n := range list {
			if !n.fixed {
				out = append(out, n)
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(p.lines)
	return out
}

// without returns the program with statement x deleted.
func (p *gprog) without(x *gnode) *gprog {
	return &gprog{lines: dropNode(p.lines, x)}
}

func dropNode(list []*gnode, x *gnode) []*gnode {
	out := make([]*gnode, 0, len(list))
	for _, n := range list {
		if n == x {
			continue
		}
		if len(n.kids) > 0 {
			c := *n
			c.kids = make([][]*gnode, len(n.kids))
			for i, k := range n.kids {
				c.kids[i] = dropNode(k, x)
			}
			n = &c
		}
		out = append(out, n)
	}
	return out
}

// flowGen generates one program.
type flowGen struct {
	r       *rand.Rand
	loops   int      // loops made so far: names their counters and variables
	funcs   []string // functions defined so far
	aliases []string // aliases defined so far (used on later lines only)
}

// flowCtx is where a statement is generated.
type flowCtx struct {
	depth  int
	loops  int      // enclosing loops: break and continue are allowed
	vars   []string // loop variables set here (never empty)
	inFunc bool     // in a function body: return, local, declare -g
	level  int      // functions of a lower level may be called (none call back)
	exit   bool     // inside ( ): exit ends only the subshell
	subst  bool     // inside an assigned $( ): no jump may skip its echo
}

const (
	genMaxDepth = 3
	genMaxTop   = 6
)

func (g *flowGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *flowGen) chance(pct int) bool { return g.r.IntN(100) < pct }

func leafNode(text string) *gnode { return &gnode{parts: []string{text}, simple: true} }

// program generates a whole program.
func (g *flowGen) program() *gprog {
	init := "d=" + g.pick("~", "build", "sub") + "; e=" + g.pick("~", "build", "sub")
	p := &gprog{lines: []*gnode{{parts: []string{init}, fixed: true}}}
	n := 1 + g.r.IntN(genMaxTop)
	for range n {
		p.lines = append(p.lines, g.top())
	}
	last := `touch "$d/mark"`
	if g.chance(30) {
		last = "touch mark"
	}
	p.lines = append(p.lines, &gnode{parts: []string{last}, fixed: true, simple: true})
	return p
}

// top generates a top-level statement: definitions that must stand on
// their own line (alias, shopt) or any statement.
func (g *flowGen) top() *gnode {
	switch g.r.IntN(14) {
	case 0:
		return leafNode("shopt -s expand_aliases")
	case 1:
		name := g.pick("al1", "al2", "al1", "al2", "true", "false", "cd")
		body := g.pick(`d=~`, `d=build`, `cd build`, `cd ~`, `touch mark`, `touch "$d/mark"`, `false`, `true`, `:`)
		g.aliases = append(g.aliases, name)
		return leafNode("alias " + name + "=" + shq(body))
	case 2:
		return g.funcDef(flowCtx{level: len(funcNames)})
	case 3:
		if g.chance(20) {
			return leafNode("shopt -s lastpipe")
		}
	}
	return g.stmt(flowCtx{level: len(funcNames)})
}

// stmt generates a statement, compound while the depth allows it.
func (g *flowGen) stmt(c flowCtx) *gnode {
	var n *gnode
	if c.depth < genMaxDepth && g.chance(45-10*c.depth) {
		n = g.compound(c)
	} else {
		n = g.leaf(c)
	}
	if g.chance(8) {
		// A redirection that fails skips the command. (No output file:
		// list and the marks stay as they are.)
		n.parts[len(n.parts)-1] += g.pick(" < nope", " < list", " 2>/dev/null", " >/dev/null")
	}
	if !c.subst && g.chance(6) {
		n.bg = true
	}
	return n
}

func (g *flowGen) list(c flowCtx, max int) []*gnode {
	n := 1 + g.r.IntN(max)
	out := make([]*gnode, 0, n)
	for range n {
		out = append(out, g.stmt(c))
	}
	return out
}

// val is a value d or e may take: never empty.
func (g *flowGen) val(c flowCtx, self string) string {
	vs := []string{"~", "build", "sub", "~", "build"}
	other := map[string]string{"d": "e", "e": "d"}[self]
	vs = append(vs, "$"+other, `"$`+other+`"`)
	for _, v := range c.vars {
		vs = append(vs, "$"+v)
	}
	return g.pick(vs...)
}

// cond generates the condition of an if, a while or a list.
func (g *flowGen) cond() string {
	s := g.pick("true", "false", "[ -e list ]", "[ -e nope ]", "[ -d build ]", `[ -d "$d" ]`,
		`[ "$d" = build ]`, "cd build", "cd nope", "cd sub", ":", "[[ -d build ]]", `[[ $d == build ]]`)
	if g.chance(15) {
		s = "! " + s
	}
	return s
}

// deferred is code run later or elsewhere (eval, trap, alias bodies).
func (g *flowGen) deferred() string {
	return g.pick(`d=~`, `d=build`, `d=sub`, `d=$e`, `e=build`, `e=~`, `cd build`, `cd ~`, `cd nope`,
		`touch mark`, `touch "$d/mark"`, `cd build; touch mark`)
}

// leaf generates a simple command.
func (g *flowGen) leaf(c flowCtx) *gnode {
	for {
		k := g.r.IntN(24)
		if n, ok := g.leafState(c, k); ok {
			return n
		}
		if n, ok := g.leafCode(c, k); ok {
			return n
		}
	}
}

// leafState generates a command that assigns, moves or touches (kind k
// of leaf's).
func (g *flowGen) leafState(c flowCtx, k int) (*gnode, bool) {
	n := func(text string) (*gnode, bool) { return leafNode(text), true }
	switch k {
	case 0, 1, 2:
		return n("d=" + g.val(c, "d"))
	case 3:
		return n("e=" + g.val(c, "e"))
	case 4, 5:
		return n(strings.TrimSpace("cd " + g.pick("build", "sub", "~", "nope", `"$d"`, `"$e"`, "", "- >/dev/null")))
	case 6:
		return n(g.pick(`touch "$d/mark"`, `touch mark`))
	case 7:
		return n("printf -v " + g.pick("d", "e") + " %s " + g.pick("~", "build", "sub"))
	case 8:
		return n("read " + g.pick("x", "d", "e") + " < list")
	case 9:
		return n(g.pick("set -- "+g.pick("~", "build", "sub")+" "+g.pick("~", "build", "sub"), "shift",
			"d=${1:-build}", "d=${2:-sub}"))
	}
	return nil, false
}

// leafCode generates a command that runs code, defines names or jumps
// (kind k of leaf's).
func (g *flowGen) leafCode(c flowCtx, k int) (*gnode, bool) {
	n := func(text string) (*gnode, bool) { return leafNode(text), true }
	switch k {
	case 10:
		return n("eval " + shq(g.deferred()))
	case 11:
		if g.chance(50) {
			return n("trap " + shq(g.deferred()) + " EXIT")
		}
		return n("trap " + shq(g.pick("d=~", "d=build", "e=~", "d=$e", "cd build", ":")) + " DEBUG")
	case 12:
		if c.inFunc {
			return n(g.pick("local", "declare", "declare -g", "local", "typeset") + " " +
				g.pick("d", "e") + "=" + g.pick("~", "build", "sub"))
		}
	case 13:
		if s, ok := g.jump(c); ok {
			return n(s)
		}
	case 14:
		var callable []string
		for _, f := range g.funcs {
			if slices.Index(funcNames, f) < c.level {
				callable = append(callable, f)
			}
		}
		if len(callable) > 0 {
			if g.chance(15) {
				return n(g.pick("unset -f ", "unset ", "unset -v ") + g.pick(callable...))
			}
			args := g.pick("", "", " build", " ~ build", " sub")
			return n(g.pick("", "", "", "command ") + g.pick(callable...) + args)
		}
	case 15:
		if len(g.aliases) > 0 {
			return n(g.pick(g.aliases...))
		}
	case 16:
		return n(g.pick(":", "true", "false", "wait"))
	case 17:
		if c.loops > 0 && len(c.vars) > 0 {
			return n("d=$" + g.pick(c.vars...))
		}
	}
	return g.leafMore(c, k)
}

// leafMore generates a command that runs code elsewhere or later, or
// changes how names resolve (kind k of leaf's).
func (g *flowGen) leafMore(c flowCtx, k int) (*gnode, bool) {
	n := func(text string) (*gnode, bool) { return leafNode(text), true }
	switch k {
	case 18:
		// Code another process runs: its state is not this shell's.
		// (d is not exported: the code must not use it.)
		code := shq(g.pick("d=build", "d=~", "cd build", "cd ~", "cd nope", "touch mark", "cd build; touch mark"))
		return n(g.pick("sh -c "+code, "bash -c "+code, "flock . -c "+code,
			"script -qec "+code+" /dev/null", "env sh -c "+code, "timeout 5 sh -c "+code))
	case 19:
		// Code a variable or a key names: it runs elsewhere or later.
		code := g.deferred()
		if g.chance(25) {
			return n(`bind -x '"\C-x": ` + code + "'")
		}
		return n(g.pick("EDITOR", "PAGER", "PROMPT_COMMAND", "GIT_SSH_COMMAND") + "=" + shq(code))
	case 20:
		// An alias on a branch, in a subshell, in a function: used on
		// later lines.
		name := g.pick("al1", "al2", "cd", "true")
		g.aliases = append(g.aliases, name)
		if g.chance(15) {
			return n("unalias " + name)
		}
		return n("alias " + name + "=" + shq(g.pick(`d=~`, `d=build`, `cd build`, `cd ~`, `touch mark`, `false`)))
	case 21:
		return n(g.pick("pushd build >/dev/null", "pushd ~ >/dev/null", "pushd nope 2>/dev/null",
			"popd >/dev/null", "popd >/dev/null", "command cd build", "builtin cd ~", "cd -P sub",
			"CDPATH=~", "export CDPATH=~", "CDPATH=", "cd ./build"))
	case 22:
		return n(g.pick("read d <<< build", "read e <<< ~", `d=$(cd build 2>/dev/null; pwd)`,
			"mapfile -t arr < list; d=${arr[1]:-sub}", ". ./inc.sh", "source inc.sh", "shift 2",
			"declare -n r=d", "r=build", "r=~", "readonly e", "readonly d", "declare -r e=build"))
	case 23:
		if c.inFunc {
			// (Never a bare local d: d would be empty.)
			return n(g.pick("local -n r=d", "local d=$d", "local e=$d", "declare -g e=~", "trap 'd=~' RETURN",
				"local -r d=~", "local d=build; readonly d"))
		}
	}
	return nil, false
}

// jump generates return, break, continue or exit where each is allowed.
func (g *flowGen) jump(c flowCtx) (string, bool) {
	if c.subst {
		return "", false
	}
	var opts []string
	if c.inFunc {
		opts = append(opts, "return", "return 1")
	}
	if c.loops > 0 {
		opts = append(opts, "break", "continue")
		if c.loops > 1 {
			opts = append(opts, "break 2", "continue 2")
		}
	} else if c.inFunc {
		opts = append(opts, "break") // not in a loop: bash says so and goes on
	}
	if c.exit {
		opts = append(opts, "exit", "cd nope || exit", "cd build || exit 1", "[ -d build ] || exit", "exec true")
	}
	if len(opts) == 0 {
		return "", false
	}
	return g.pick(opts...), true
}

// shq quotes s for bash in single quotes (s holds none).
func shq(s string) string { return "'" + s + "'" }

// compound generates a compound statement.
func (g *flowGen) compound(c flowCtx) *gnode {
	in := c
	in.depth++
	switch g.r.IntN(12) {
	case 0, 1:
		return g.ifNode(in)
	case 2:
		return g.caseNode(in)
	case 3, 4:
		return g.loopNode(in)
	case 5:
		in.exit = true
		return &gnode{parts: []string{"( ", ")"}, kids: [][]*gnode{g.list(in, 3)}}
	case 6:
		if g.chance(20) {
			return &gnode{parts: []string{"time { ", "} 2>/dev/null"}, kids: [][]*gnode{g.list(in, 3)}}
		}
		return &gnode{parts: []string{"{ ", "}"}, kids: [][]*gnode{g.list(in, 3)}}
	case 7:
		if g.chance(50) {
			return &gnode{parts: []string{"echo | { ", "}"}, kids: [][]*gnode{g.list(in, 2)}}
		}
		return &gnode{parts: []string{"{ ", "} | cat"}, kids: [][]*gnode{g.list(in, 2)}}
	case 8:
		return g.substNode(in)
	case 9, 10:
		return g.andOr(in)
	default:
		if c.level == 0 {
			return g.ifNode(in)
		}
		return g.funcDef(in) // in a body: a function of a lower level
	}
}

func (g *flowGen) ifNode(c flowCtx) *gnode {
	n := &gnode{parts: []string{"if " + g.cond() + "; then "}}
	n.kids = append(n.kids, g.list(c, 3))
	if g.chance(30) {
		n.parts = append(n.parts, "elif "+g.cond()+"; then ")
		n.kids = append(n.kids, g.list(c, 2))
	}
	if g.chance(50) {
		n.parts = append(n.parts, "else ")
		n.kids = append(n.kids, g.list(c, 2))
	}
	n.parts = append(n.parts, "fi")
	return n
}

func (g *flowGen) caseNode(c flowCtx) *gnode {
	n := &gnode{parts: []string{"case " + g.pick("x", `"$d"`, `"$e"`, "build") + " in "}}
	k := 1 + g.r.IntN(3)
	for i := range k {
		if i > 0 {
			n.parts[len(n.parts)-1] += g.pick(";; ", ";; ", ";; ", ";& ", ";;& ")
		}
		n.parts[len(n.parts)-1] += g.pick("x", "y", "build", "sub", "*", "*/home", "x|y") + ") "
		n.kids = append(n.kids, g.list(c, 2))
		n.parts = append(n.parts, "")
	}
	n.parts[len(n.parts)-1] = ";; esac"
	return n
}

func (g *flowGen) loopNode(c flowCtx) *gnode {
	g.loops++
	id := strconv.Itoa(g.loops)
	body := c
	body.loops++
	switch g.r.IntN(6) {
	case 5:
		i := "i" + id
		return &gnode{parts: []string{"for ((" + i + "=0; " + i + "<2; " + i + "++)); do ", "done"},
			kids: [][]*gnode{g.list(body, 3)}}
	case 0:
		i := "i" + id
		return &gnode{parts: []string{i + "=0; while [ $" + i + " -lt 2 ]; do " + i + "=$((" + i + "+1)); ", "done"},
			kids: [][]*gnode{g.list(body, 3)}}
	case 1:
		i := "i" + id
		return &gnode{parts: []string{i + "=0; until [ $" + i + " -ge 2 ]; do " + i + "=$((" + i + "+1)); ", "done"},
			kids: [][]*gnode{g.list(body, 3)}}
	case 2:
		x := "x" + id
		body.vars = append(body.vars[:len(body.vars):len(body.vars)], x)
		return &gnode{parts: []string{"while read " + x + "; do ", "done < list"}, kids: [][]*gnode{g.list(body, 3)}}
	case 3:
		x := "x" + id
		body.vars = append(body.vars[:len(body.vars):len(body.vars)], x)
		return &gnode{parts: []string{"for " + x + " in *.txt; do ", "done"}, kids: [][]*gnode{g.list(body, 3)}}
	default:
		x := "x" + id
		body.vars = append(body.vars[:len(body.vars):len(body.vars)], x)
		words := g.pick("a b", "~ build", "build sub", "build", "sub ~ build")
		return &gnode{parts: []string{"for " + x + " in " + words + "; do ", "done"}, kids: [][]*gnode{g.list(body, 3)}}
	}
}

// substNode generates a command substitution: run for its side effects
// only, or assigned with a value printed last.
func (g *flowGen) substNode(c flowCtx) *gnode {
	in := c
	in.exit = false
	if g.chance(50) {
		return &gnode{parts: []string{`: "$(`, `)"`}, kids: [][]*gnode{g.list(in, 2)}}
	}
	// The list runs in a subshell of its own: whatever ends it (a failed
	// assignment to a readonly variable does), the echo runs.
	in.subst = true
	v := g.pick("d", "e")
	return &gnode{parts: []string{v + "=$( ( ", ") >/dev/null; echo " + g.pick("~", "build", "sub") + ")"},
		kids: [][]*gnode{g.list(in, 2)}}
}

func (g *flowGen) andOr(c flowCtx) *gnode {
	cond := g.cond()
	switch g.r.IntN(3) {
	case 0:
		return &gnode{parts: []string{cond + " && ", ""}, kids: [][]*gnode{g.list(c, 2)}, group: []bool{true}}
	case 1:
		return &gnode{parts: []string{cond + " || ", ""}, kids: [][]*gnode{g.list(c, 2)}, group: []bool{true}}
	default:
		return &gnode{parts: []string{cond + " && ", " || ", ""}, kids: [][]*gnode{g.list(c, 1), g.list(c, 1)},
			group: []bool{true, true}}
	}
}

// funcNames are the functions a program defines, by level: a body may
// call the functions before its own name only (no recursion).
var funcNames = []string{"f", "g", "h"}

// funcDef defines f, g or h; its body may use return and locals.
func (g *flowGen) funcDef(c flowCtx) *gnode {
	name := g.pick(funcNames[:c.level]...)
	body := flowCtx{depth: c.depth + 1, inFunc: true, level: slices.Index(funcNames, name)}
	n := &gnode{parts: []string{name + "() { ", "}"}, kids: [][]*gnode{g.list(body, 4)}}
	g.funcs = append(g.funcs, name)
	return n
}
