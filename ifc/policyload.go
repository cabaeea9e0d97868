package ifc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/internal/yamlfile"

	"github.com/parallax/parallax/verdict"
)

// MaxPolicyBytes bounds an ifc policy file.
const MaxPolicyBytes = 256 << 10

// Problem is one thing wrong with a policy file.
type Problem = yamlfile.Problem

// LoadError lists every problem of a policy; nothing was loaded.
type LoadError = yamlfile.LoadError

// Load reads and compiles an ifc policy file.
func Load(file string) (*Policy, error) {
	f, err := os.Open(file) // the operator names the policy file
	if err != nil {
		return nil, fmt.Errorf("load ifc policy %s: %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicyBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("load ifc policy %s: %w", file, err)
	}
	return Parse(file, data)
}

// Parse compiles an ifc policy from YAML:
//
//	default: block|escalate|allow        # required: cells no rule covers
//	taint_sinks: [SINK…]                 # sinks judged against the session taint
//	memory_block: [LEVEL…]               # taints at which memory_write is blocked
//	rules:
//	  - name: NAME                       # required, unique
//	    levels: [LEVEL… | "*"]           # required
//	    sinks: [SINK… | external | "*"]  # required
//	    decision: allow|escalate|block   # required
//	    reason: TEXT
//	    description: TEXT
//
// Where rules overlap the most severe decision wins (the first such rule
// is reported). Unknown keys, wrong YAML types, duplicates, unknown
// levels or sinks, aliases and extra documents fail the load with the
// file, line and rule; nothing is skipped.
func Parse(name string, data []byte) (*Policy, error) {
	c := &pcompiler{file: name, names: map[string]bool{}}
	if len(data) > MaxPolicyBytes {
		c.problem(0, "", fmt.Sprintf("policy is over the %d-byte limit", MaxPolicyBytes))
		return nil, &LoadError{Problems: c.problems}
	}
	p := c.document(data)
	if len(c.problems) > 0 {
		return nil, &LoadError{Problems: c.problems}
	}
	p.flatten()
	return p, nil
}

type pcompiler struct {
	file     string
	names    map[string]bool
	problems []Problem
}

func (c *pcompiler) problem(line int, rule, msg string) {
	c.problems = append(c.problems, Problem{File: c.file, Line: line, Rule: rule, Msg: msg})
}

var yamlLine = lazyRE(`line (\d+)`)

// root decodes the single YAML document and returns its top mapping.
func (c *pcompiler) root(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			c.problem(0, "", "empty policy: key \"default\" is required")
			return nil
		}
		line := 0
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		c.problem(line, "", "invalid YAML: "+strings.TrimPrefix(err.Error(), "yaml: "))
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		c.problem(extra.Line, "", "more than one YAML document")
		return nil
	}
	if bad := yamlfile.FindAlias(&doc); bad != nil {
		c.problem(bad.Line, "", "YAML aliases are not supported in ifc policies")
		return nil
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		line := 0
		if len(doc.Content) > 0 {
			line = doc.Content[0].Line
		}
		c.problem(line, "", "want a mapping with keys default, taint_sinks, memory_block, rules")
		return nil
	}
	return doc.Content[0]
}

// document compiles the top mapping.
func (c *pcompiler) document(data []byte) *Policy {
	top := c.root(data)
	if top == nil {
		return nil
	}
	p := &Policy{name: c.file, taintSinks: defaultTaintSinks, memBlock: defaultMemoryBlock}
	fields := c.fields(top, "", []string{"default", "taint_sinks", "memory_block", "rules"})
	if v := fields["default"]; v == nil {
		c.problem(top.Line, "", "key \"default\" is required (allow, escalate or block)")
	} else if d, ok := c.decision(v, ""); ok {
		p.def = d
	}
	if v := fields["taint_sinks"]; v != nil {
		if s, ok := c.sinkList(v, "", "taint_sinks", true); ok {
			p.taintSinks = s
		}
	}
	if v := fields["memory_block"]; v != nil {
		if ls, ok := c.levelList(v, "", "memory_block", true); ok {
			p.memBlock = ls
		}
	}
	var rules []prule
	if v := fields["rules"]; v != nil {
		rules = c.rules(v)
	}
	compile(p, rules)
	return p
}

// fields checks a mapping's keys against the allowed ones.
func (c *pcompiler) fields(n *yaml.Node, rule string, allowed []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode || !contains(allowed, k.Value):
			c.problem(k.Line, rule, fmt.Sprintf("unknown key %q (want one of %s)", k.Value, strings.Join(allowed, ", ")))
		case out[k.Value] != nil:
			c.problem(k.Line, rule, fmt.Sprintf("key %q given twice", k.Value))
		default:
			out[k.Value] = v
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a YAML string scalar.
func (c *pcompiler) str(n *yaml.Node, rule, key string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		c.problem(n.Line, rule, fmt.Sprintf("%s: want a string, got %s", key, yamlfile.KindOf(n)))
		return "", false
	}
	return n.Value, true
}

// decision reads allow, escalate or block.
func (c *pcompiler) decision(n *yaml.Node, rule string) (verdict.Decision, bool) {
	s, ok := c.str(n, rule, "decision")
	if !ok {
		return verdict.Block, false
	}
	switch s {
	case "allow":
		return verdict.Allow, true
	case "escalate":
		return verdict.Escalate, true
	case "block":
		return verdict.Block, true
	}
	c.problem(n.Line, rule, fmt.Sprintf("unknown decision %q (want allow, escalate or block)", s))
	return verdict.Block, false
}

// list returns the string items of a YAML list.
func (c *pcompiler) list(n *yaml.Node, rule, key string, emptyOK bool) ([]*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		c.problem(n.Line, rule, fmt.Sprintf("%s: want a list, got %s", key, yamlfile.KindOf(n)))
		return nil, false
	}
	if len(n.Content) == 0 && !emptyOK {
		c.problem(n.Line, rule, key+": empty list (omit the key or name at least one)")
		return nil, false
	}
	ok := true
	seen := map[string]bool{}
	for _, it := range n.Content {
		s, good := c.str(it, rule, key)
		if good && seen[s] {
			c.problem(it.Line, rule, fmt.Sprintf("%s: %q listed twice", key, s))
			good = false
		}
		seen[s] = true
		ok = ok && good
	}
	return n.Content, ok
}

// sinkList reads sink names and the groups "external" and "*".
func (c *pcompiler) sinkList(n *yaml.Node, rule, key string, emptyOK bool) (sinkSet, bool) {
	items, ok := c.list(n, rule, key, emptyOK)
	var out sinkSet
	for _, it := range items {
		switch it.Value {
		case "*":
			out = out.union(allSinks)
		case "external":
			out = out.union(externalSinks)
		default:
			s, err := ParseSink(it.Value)
			if err != nil {
				c.problem(it.Line, rule, key+": "+err.Error())
				ok = false
				continue
			}
			out.add(s)
		}
	}
	return out, ok
}

// levelList reads level names and "*", in level order.
func (c *pcompiler) levelList(n *yaml.Node, rule, key string, emptyOK bool) ([]Level, bool) {
	items, ok := c.list(n, rule, key, emptyOK)
	var set [levelCount]bool
	for _, it := range items {
		if it.Value == "*" {
			set = [levelCount]bool{true, true, true, true, true}
			continue
		}
		l, err := ParseLevel(it.Value)
		if err != nil {
			c.problem(it.Line, rule, key+": "+err.Error())
			ok = false
			continue
		}
		set[l] = true
	}
	out := []Level{}
	for i, on := range set {
		if on {
			out = append(out, Level(i))
		}
	}
	return out, ok
}
