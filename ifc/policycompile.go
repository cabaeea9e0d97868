package ifc

import (
	"fmt"
	"regexp"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/internal/yamlfile"
	"github.com/parallax/parallax/verdict"
)

// prule is one parsed policy rule.
type prule struct {
	name, reason string
	levels       []Level
	sinks        sinkSet
	decision     verdict.Decision
}

var (
	ruleKeys  = []string{"name", "description", "levels", "sinks", "decision", "reason"}
	validName = lazyRE(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
)

// rules reads the rules: list.
func (c *pcompiler) rules(n *yaml.Node) []prule {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.problem(n.Line, "", fmt.Sprintf("rules: want a list of rules, got %s", yamlfile.KindOf(n)))
		return nil
	}
	var out []prule
	for i, item := range n.Content {
		if r, ok := c.rule(i, item); ok {
			out = append(out, r)
		}
	}
	return out
}

// rule reads one rule; ok is false when it has problems.
func (c *pcompiler) rule(i int, n *yaml.Node) (prule, bool) {
	label := fmt.Sprintf("rules[%d]", i)
	if n.Kind != yaml.MappingNode {
		c.problem(n.Line, "", fmt.Sprintf("%s: want a rule mapping, got %s", label, yamlfile.KindOf(n)))
		return prule{}, false
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if k, v := n.Content[j], n.Content[j+1]; k.Value == "name" && v.Kind == yaml.ScalarNode {
			label = v.Value
			break
		}
	}
	before := len(c.problems)
	f := c.fields(n, label, ruleKeys)
	var r prule
	for _, key := range []string{"name", "levels", "sinks", "decision"} {
		if f[key] == nil {
			c.problem(n.Line, label, fmt.Sprintf("key %q is required", key))
		}
	}
	if v := f["name"]; v != nil {
		if s, ok := c.str(v, label, "name"); ok {
			c.ruleName(v, s)
			r.name = s
		}
	}
	if v := f["levels"]; v != nil {
		r.levels, _ = c.levelList(v, label, "levels", false)
	}
	if v := f["sinks"]; v != nil {
		r.sinks, _ = c.sinkList(v, label, "sinks", false)
	}
	if v := f["decision"]; v != nil {
		r.decision, _ = c.decision(v, label)
	}
	for _, key := range []string{"reason", "description"} {
		if v := f[key]; v != nil {
			if s, ok := c.str(v, label, key); ok && key == "reason" {
				r.reason = s
			}
		}
	}
	return r, len(c.problems) == before
}

// ruleName checks a rule name's spelling and uniqueness.
func (c *pcompiler) ruleName(n *yaml.Node, s string) {
	switch {
	case !validName().MatchString(s):
		c.problem(n.Line, s, "name: want letters, digits, _ . - (at most 128, starting with a letter or digit)")
	case c.names[s]:
		c.problem(n.Line, s, "name: another rule has this name")
	}
	c.names[s] = true
}

// compile fills the matrix: the default everywhere, then each rule where
// it is more severe than what covers the cell (or the cell is uncovered),
// then memory_block.
func compile(p *Policy, rules []prule) {
	var covered [levelCount][sinkCount]bool
	for l := range levelCount {
		for s := range sinkCount {
			p.cells[l][s] = Outcome{Decision: p.def, Rule: RuleDefault}
		}
	}
	for _, r := range rules {
		for _, l := range r.levels {
			for s := Sink(0); s < sinkCount; s++ {
				if !r.sinks.has(s) {
					continue
				}
				o := &p.cells[l][s]
				if !covered[l][s] || r.decision.Severity() > o.Decision.Severity() {
					*o = Outcome{Decision: r.decision, Rule: r.name, Reason: r.reason}
					covered[l][s] = true
				}
			}
		}
	}
	for _, l := range p.memBlock {
		if o := &p.cells[l][SinkMemory]; o.Decision != verdict.Block {
			*o = Outcome{Decision: verdict.Block, Rule: RuleMemoryBlock,
				Reason: "memory_write is refused once the session has seen " + l.String() + " data"}
		}
	}
}

// lazyRE compiles expr once, on the first call of the returned function:
// package initialisation stays cheap for processes that never need it.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
