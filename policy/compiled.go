package policy

import (
	"fmt"
	"strings"
)

// Compiled renders the compiled policy deterministically, one rule per
// block, in evaluation order: expanded paths with their matcher shape,
// action types as written and how many catalog types they cover, regexes,
// tiers. Golden files and `parallax policy lint -v` use it.
func (p *Policy) Compiled() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sources: %s\n", strings.Join(p.sources, ", "))
	for _, r := range p.evalOrder() {
		label := r.section.String()
		if r.fallback {
			label += "/fallback"
		}
		fmt.Fprintf(&b, "%s %s (%s:%d)\n", label, r.name, r.source, r.line)
		b.WriteString(r.conditions())
		fmt.Fprintf(&b, "  effect: %s", r.effect)
		if r.effect == Verify {
			fmt.Fprintf(&b, " tier %d", r.tier)
		}
		b.WriteString("\n")
		if r.reason != "" {
			fmt.Fprintf(&b, "  reason: %s\n", r.reason)
		}
	}
	return b.String()
}

// conditions renders what a rule matches, independent of its name,
// section and reason (Lint compares these).
func (r *rule) conditions() string {
	var b strings.Builder
	if r.typesWritten == nil || contains(r.typesWritten, "*") {
		b.WriteString("  action_types: * (every type)\n")
	} else {
		fmt.Fprintf(&b, "  action_types: %s (%d types)\n", strings.Join(r.typesWritten, " "), len(r.types))
	}
	if r.kind != kindNone {
		fmt.Fprintf(&b, "  %s pattern: %s priority %d\n", r.kind, r.pattern, r.priority)
	}
	globs := func(key string, gs []*pathPat) {
		for _, g := range gs {
			fmt.Fprintf(&b, "  %s: %s [%s %q]\n", key, g.pat, [...]string{"exact", "tree", "glob"}[g.kind], g.lit)
		}
	}
	globs("path", r.paths)
	globs("path_outside", r.outside)
	if r.access != 0 {
		fmt.Fprintf(&b, "  access: %s\n", r.access)
	}
	for _, re := range r.commands {
		fmt.Fprintf(&b, "  command: %s\n", re)
	}
	list := func(key string, l []string) {
		if len(l) > 0 {
			fmt.Fprintf(&b, "  %s: %s\n", key, strings.Join(l, " "))
		}
	}
	list("programs", r.programs)
	list("subcommands", r.subcommands)
	list("domains", r.domains)
	list("capabilities", r.capabilities)
	list("methods", r.methods)
	if r.recursive >= 0 {
		fmt.Fprintf(&b, "  recursive: %t\n", r.recursive == 1)
	}
	return b.String()
}

// Warning is a lint finding that does not stop a load.
type Warning struct {
	File string
	Line int
	Rule string
	Msg  string
}

// String renders "file:line: rule: warning: message".
func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: rule %q: warning: %s", w.File, w.Line, w.Rule, w.Msg)
}

// Lint reports rules that can never decide: an allow or verify rule with
// the same conditions as a deny rule, an allow rule with the same
// conditions as a verify rule, and a rule identical to an earlier one of
// the same effect. Fallback rules are compared only with fallback rules.
func (p *Policy) Lint() []Warning {
	var out []Warning
	type seen struct {
		r   *rule
		key string
	}
	var prior []seen
	for _, r := range p.evalOrder() {
		if r.section == secRules {
			continue // the chain is first-match by design
		}
		key := r.conditions()
		for _, s := range prior {
			if s.key != key || s.r.fallback != r.fallback {
				continue
			}
			if s.r.effect == Verify && r.effect == Verify && s.r.tier < r.tier {
				continue
			}
			out = append(out, Warning{File: r.source, Line: r.line, Rule: r.name,
				Msg: fmt.Sprintf("unreachable: %s rule %q (%s:%d) matches the same actions first",
					s.r.effect, s.r.name, s.r.source, s.r.line)})
			break
		}
		prior = append(prior, seen{r, key})
	}
	return out
}
