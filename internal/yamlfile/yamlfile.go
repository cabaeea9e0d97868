// Package yamlfile holds what the YAML rule languages (tier 0 policy, the
// IFC flow policy) share: located load problems and embedded presets.
package yamlfile

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Problem is one thing wrong with a rule file.
type Problem struct {
	File string
	Line int
	Rule string // "" when the problem is outside a rule
	Msg  string
}

// String renders "file:line: rule "name": message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	if p.Rule != "" {
		b.WriteString(": rule " + strconv.Quote(p.Rule))
	}
	b.WriteString(": " + p.Msg)
	return b.String()
}

// LoadError lists every problem of a file; nothing was loaded.
type LoadError struct {
	Problems []Problem
}

// Error renders one problem per line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Presets are YAML files embedded under Dir of FS; Kind names them in
// errors ("policy", "ifc").
type Presets struct {
	FS   fs.FS
	Dir  string
	Kind string
}

// Names lists the presets, sorted.
func (p Presets) Names() []string {
	ents, err := fs.ReadDir(p.FS, p.Dir)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Source returns the YAML text of a preset.
func (p Presets) Source(name string) ([]byte, error) {
	for _, n := range p.Names() {
		if n == name {
			return fs.ReadFile(p.FS, path.Join(p.Dir, name+".yaml"))
		}
	}
	return nil, fmt.Errorf("unknown %s preset %q (want %s)", p.Kind, name, strings.Join(p.Names(), ", "))
}

// FindAlias returns the first alias node in n (rule files refuse them: an
// alias can make one line mean two rules), or nil.
func FindAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, ch := range n.Content {
		if a := FindAlias(ch); a != nil {
			return a
		}
	}
	return nil
}

// KindOf names what a node is, for an error: "a mapping", "a list",
// or a scalar's tag and value.
func KindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strings.TrimPrefix(n.Tag, "!!") + " " + strconv.Quote(n.Value)
	case yaml.DocumentNode, yaml.AliasNode:
	}
	return "something else"
}
