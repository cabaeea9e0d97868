package shell

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/parallax/parallax/internal/glob"
)

// This file reads find's expression into a tree the Selection evaluates
// per entry in three-valued (Kleene) logic: a test is true, false or
// unknown, and the walk reaches an action when it is evaluated as not
// false. Tests it does not evaluate (-size, -newer, -regex, …) are
// unknown; a word it does not know makes the whole selection nil
// (everything).

type tri uint8

const (
	triFalse tri = iota
	triUnknown
	triTrue
)

func (a tri) and(b tri) tri { return min(a, b) }
func (a tri) or(b tri) tri  { return max(a, b) }
func (a tri) not() tri      { return 2 - a }

// Markers whose evaluation the Selection follows.
const (
	hitTarget = iota // the action the set feeds
	hitPrune         // a -prune
)

type findOp uint8

const (
	opAnd findOp = iota
	opOr
	opNot
	opComma
	opTest
)

type findNode struct {
	op     findOp
	kids   []*findNode
	prim   string         // opTest: the primary (-name, -exec, …)
	arg    string         // its value
	val    tri            // its value when not computed per entry
	mark   int            // -1, or a hit marker
	prints bool           // the tree holds -print/-print0 (computed at the root)
	reOnce sync.Once      // a selection may be tested from more than one goroutine
	re     *regexp.Regexp // a -path pattern, compiled on first use
	reErr  bool           // it does not compile
}

func (n *findNode) hasPrint() bool { return n.prints }

// eval returns the node's value for the entry and whether it evaluates
// each marker.
func (n *findNode) eval(s *Selection, rel string, dir bool) (tri, [2]tri) {
	switch n.op {
	case opNot:
		v, h := n.kids[0].eval(s, rel, dir)
		return v.not(), h
	case opAnd, opOr, opComma:
		v, h := n.kids[0].eval(s, rel, dir)
		for _, k := range n.kids[1:] {
			kv, kh := k.eval(s, rel, dir)
			reached := v // the right side runs when the left is true (and)…
			switch n.op {
			case opOr:
				reached = v.not() // … or false (or)
			case opComma:
				reached = triTrue
			}
			for i := range h {
				h[i] = h[i].or(reached.and(kh[i]))
			}
			switch n.op {
			case opAnd:
				v = v.and(kv)
			case opOr:
				v = v.or(kv)
			default:
				v = kv
			}
		}
		return v, h
	}
	var h [2]tri
	if n.mark >= 0 {
		h[n.mark] = triTrue
	}
	return n.test(s, rel, dir), h
}

// test evaluates a primary.
func (n *findNode) test(s *Selection, rel string, dir bool) tri {
	switch n.prim {
	case "-name", "-iname":
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		p := n.arg
		if n.prim == "-iname" {
			p, name = strings.ToLower(p), strings.ToLower(name)
		}
		return globTri(p, name)
	case "-path", "-wholename", "-ipath", "-iwholename":
		if s.root == "" {
			return triUnknown
		}
		full := strings.TrimSuffix(s.root, "/") + "/" + rel
		n.reOnce.Do(func() {
			// Compiled once per node: a selection is tested against
			// every entry of a listing.
			re, err := wildRegexp(n.arg, strings.HasPrefix(n.prim, "-i"))
			n.re, n.reErr = re, err != nil
		})
		if n.reErr {
			return triUnknown
		}
		return boolTri(n.re.MatchString(full))
	case "-type":
		t := triFalse
		for _, c := range strings.Split(n.arg, ",") {
			switch {
			case c == "d" && dir, c == "f" && !dir:
				t = triTrue
			case c != "d" && c != "f" && !dir:
				t = t.or(triUnknown) // links, sockets: a file here may be one
			}
		}
		return t
	}
	return n.val
}

func boolTri(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func globTri(p, name string) tri {
	q, ext, ok := glob.ToGo(p)
	if ext || !ok {
		return triUnknown
	}
	return boolTri(glob.MatchSeg(q, name, true))
}

// wildRegexp compiles a find -path pattern: fnmatch without
// FNM_PATHNAME, so "*" and "?" cross "/", and a leading dot is matched.
func wildRegexp(p string, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		case '[':
			end := glob.ClassEnd(p, i)
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			cl := p[i+1 : end]
			if strings.HasPrefix(cl, "!") {
				cl = "^" + cl[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(cl, `\`, `\\`) + "]")
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteByte('$')
	return regexp.Compile(b.String())
}

// findSelection reads find's expression args[start:] for the set that
// the action at target feeds (-1: what find prints). roots are the
// patterns of its roots. nil: the expression is not understood (every
// entry is selected).
func findSelection(args []Word, start, target int, roots []string) *Selection {
	p := findParser{args: args, i: start, target: target}
	s := &Selection{target: target, maxDepth: -1}
	if len(roots) == 1 && !strings.ContainsAny(roots[0], "*?[\\") {
		s.root = roots[0]
	}
	p.sel = s
	if p.i >= len(args) {
		s.expr = &findNode{op: opTest, val: triTrue, mark: -1}
		return s
	}
	n := p.comma()
	if p.bad || p.i != len(args) {
		return nil
	}
	n.prints = p.prints
	s.expr = n
	return s
}

type findParser struct {
	args   []Word
	i      int
	target int
	sel    *Selection
	bad    bool
	prints bool
}

func (p *findParser) peek() (string, bool) {
	if p.i >= len(p.args) {
		return "", false
	}
	w := p.args[p.i]
	if !w.Known {
		p.bad = true
		return "", false
	}
	return w.Value, true
}

func (p *findParser) comma() *findNode {
	n := p.or()
	for v, ok := p.peek(); ok && v == ","; v, ok = p.peek() {
		p.i++
		n = &findNode{op: opComma, kids: []*findNode{n, p.or()}, mark: -1}
	}
	return n
}

func (p *findParser) or() *findNode {
	n := p.and()
	for v, ok := p.peek(); ok && (v == "-o" || v == "-or"); v, ok = p.peek() {
		p.i++
		n = &findNode{op: opOr, kids: []*findNode{n, p.and()}, mark: -1}
	}
	return n
}

func (p *findParser) and() *findNode {
	n := p.unary()
	for !p.bad {
		v, ok := p.peek()
		if !ok || v == "-o" || v == "-or" || v == "," || v == ")" {
			return n
		}
		if v == "-a" || v == "-and" {
			p.i++
		}
		n = &findNode{op: opAnd, kids: []*findNode{n, p.unary()}, mark: -1}
	}
	return n
}

func (p *findParser) unary() *findNode {
	v, ok := p.peek()
	if !ok {
		p.bad = true
		return &findNode{mark: -1, op: opTest}
	}
	switch v {
	case "!", "-not":
		p.i++
		return &findNode{op: opNot, kids: []*findNode{p.unary()}, mark: -1}
	case "(":
		p.i++
		n := p.comma()
		if v, ok := p.peek(); !ok || v != ")" {
			p.bad = true
			return n
		}
		p.i++
		return n
	}
	return p.primary(v)
}

// primary reads one test or action and its values.
func (p *findParser) primary(v string) *findNode {
	at := p.i
	p.i++
	n := &findNode{op: opTest, prim: v, val: triUnknown, mark: -1}
	if at == p.target {
		n.mark = hitTarget
	}
	arg := func() string {
		if p.i >= len(p.args) || !p.args[p.i].Known {
			p.bad = true
			return ""
		}
		p.i++
		return p.args[p.i-1].Value
	}
	switch {
	case isFindAction(v):
		end := execEnd(p.args, at)
		if end >= len(p.args) {
			p.bad = true
			return n
		}
		if p.args[end].Value == "+" {
			n.val = triTrue
		}
		p.i = end + 1
	case v == "-maxdepth" || v == "-mindepth":
		d, err := strconv.Atoi(arg())
		if err != nil || d < 0 {
			p.bad = true
		}
		if v == "-maxdepth" {
			p.sel.maxDepth = d
		} else {
			p.sel.minDepth = d
		}
		n.val = triTrue
	case v == "-prune":
		n.val, n.mark = triTrue, hitPrune
	case v == "-delete" || v == "-depth" || v == "-d":
		p.sel.depth = true
		n.val = triTrue
	case v == "-print" || v == "-print0":
		n.val = triTrue
		if p.target < 0 {
			n.mark, p.prints = hitTarget, true
		}
	case v == "-true" || v == "-ls" || v == "-follow" || v == "-xdev" || v == "-mount" ||
		v == "-noleaf" || v == "-ignore_readdir_race" || v == "-nowarn" || v == "-warn" || v == "-daystart":
		n.val = triTrue
	case v == "-false":
		n.val = triFalse
	case v == "-name" || v == "-iname" || v == "-path" || v == "-ipath" || v == "-wholename" ||
		v == "-iwholename" || v == "-type":
		n.arg = arg()
	case v == "-fprintf":
		arg()
		arg()
		n.val = triTrue
	case findWrite[v] || v == "-printf":
		arg()
		n.val = triTrue
	case findValue1[v] || findRead[v]:
		arg()
	case v == "-empty" || v == "-executable" || v == "-readable" || v == "-writable" || v == "-nouser" ||
		v == "-nogroup" || v == "-quit":
	default:
		p.bad = true // an unknown primary may take values or be an operator
	}
	return n
}
