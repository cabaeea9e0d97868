package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/parallax/parallax/internal/yamlfile"
)

// MaxPolicyBytes bounds a policy file.
const MaxPolicyBytes = 1 << 20

// Problem is one thing wrong with a policy file.
type Problem = yamlfile.Problem

// LoadError lists every problem found in a policy; nothing was loaded.
type LoadError = yamlfile.LoadError

// Load reads and compiles a policy file.
func Load(file string, v Vars) (*Policy, error) {
	f, err := os.Open(file) // the operator names the policy file
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", file, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicyBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("load policy %s: %w", file, err)
	}
	return Parse(file, data, v)
}

// Parse compiles a policy from YAML. name is used in errors and as the
// rules' source. Any problem fails the whole load (*LoadError lists them
// all); no rule is ever skipped.
func Parse(name string, data []byte, v Vars) (*Policy, error) {
	c := &compiler{file: name, names: map[string]int{}}
	v, ok := c.checkVars(v)
	c.vars = v
	if len(data) > MaxPolicyBytes {
		c.problem(0, "", fmt.Sprintf("policy is over the %d-byte limit", MaxPolicyBytes))
	}
	if ok && len(c.problems) == 0 {
		c.document(data)
	}
	if len(c.problems) > 0 {
		return nil, &LoadError{Problems: c.problems}
	}
	return build([]string{name}, c.rules), nil
}

type compiler struct {
	file     string
	vars     Vars
	names    map[string]int // rule name → line
	rules    []*rule
	problems []Problem
}

func (c *compiler) problem(line int, rule, msg string) {
	c.problems = append(c.problems, Problem{File: c.file, Line: line, Rule: rule, Msg: msg})
}

func (c *compiler) checkVars(v Vars) (Vars, bool) {
	ok := true
	for _, p := range []*string{&v.Workspace, &v.Home} {
		if *p == "" {
			continue
		}
		if !path.IsAbs(*p) {
			c.problem(0, "", fmt.Sprintf("variable value %q is not an absolute path", *p))
			ok = false
			continue
		}
		*p = path.Clean(*p)
	}
	return v, ok
}

var yamlLine = lazyRE(`line (\d+)`)

func (c *compiler) document(data []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return // an empty file is an empty policy
		}
		line := 0
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		c.problem(line, "", "invalid YAML: "+strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		c.problem(extra.Line, "", "more than one YAML document")
		return
	}
	if bad := yamlfile.FindAlias(&doc); bad != nil {
		c.problem(bad.Line, "", "YAML aliases are not supported in policies")
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return
	}
	if top.Kind != yaml.MappingNode {
		c.problem(top.Line, "", "want a mapping with keys deny, verify, allow, rules")
		return
	}
	var chain []*rule
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, val := top.Content[i], top.Content[i+1]
		sec, known := map[string]section{"deny": secDeny, "verify": secVerify, "allow": secAllow, "rules": secRules}[k.Value]
		switch {
		case !known:
			c.problem(k.Line, "", fmt.Sprintf("unknown key %q (want deny, verify, allow or rules)", k.Value))
			continue
		case seen[k.Value]:
			c.problem(k.Line, "", fmt.Sprintf("key %q given twice", k.Value))
			continue
		}
		seen[k.Value] = true
		if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
			continue
		}
		if val.Kind != yaml.SequenceNode {
			c.problem(val.Line, "", fmt.Sprintf("%s: want a list of rules, got %s", k.Value, yamlfile.KindOf(val)))
			continue
		}
		for j, item := range val.Content {
			if r := c.rule(sec, j, item); r != nil {
				if sec == secRules {
					chain = append(chain, r)
				} else {
					c.rules = append(c.rules, r)
				}
			}
		}
	}
	c.rules = append(sortSections(c.rules), sortChain(chain)...)
}

// sortSections orders section rules deny, verify, allow, keeping file order.
func sortSections(rs []*rule) []*rule {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].section < rs[j].section })
	return rs
}

// sortChain orders rules: entries by priority, keeping file order on ties.
func sortChain(rs []*rule) []*rule {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].priority < rs[j].priority })
	return rs
}
