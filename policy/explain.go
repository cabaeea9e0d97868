package policy

import (
	"fmt"
	"strings"
)

// Step is one rule as Explain saw it.
type Step struct {
	Rule     string
	Source   string
	Line     int
	Section  string // deny, verify, allow or rules
	Fallback bool
	Effect   Effect
	Tier     int
	Priority int
	Applies  bool   // the rule lists the action's type
	Matched  bool   // every condition held
	Decided  bool   // this rule produced the result
	Detail   string // why it matched or not
}

// Explanation is Evaluate's result with every rule in evaluation order.
type Explanation struct {
	Result Result
	Steps  []Step
}

// Explain evaluates in and reports every rule in evaluation order: deny
// rules, the rules: chain, verify, allow, then the fallbacks. Rules that
// do not list the action's type are reported with Applies false.
func (p *Policy) Explain(in *Input) Explanation {
	res, decider := p.decide(in)
	ex := Explanation{Result: res}
	if p == nil || in == nil || in.Action == nil || in.Action.Payload == nil {
		return ex
	}
	chainDone := ""
	for _, r := range p.evalOrder() {
		st := Step{Rule: r.name, Source: r.source, Line: r.line, Section: r.section.String(),
			Fallback: r.fallback, Effect: r.effect, Tier: r.tier, Priority: r.priority,
			Decided: r == decider}
		switch {
		case !r.appliesTo(in.Action.Type):
			st.Detail = "does not list " + string(in.Action.Type)
		case r.section == secRules && chainDone != "":
			st.Applies = true
			st.Detail = "not reached: rules: entry " + chainDone + " matched first"
		default:
			st.Applies = true
			ok, h := r.match(in)
			st.Matched = ok
			if ok {
				st.Detail = "matched"
				if part := r.part(in, h); part != "" {
					st.Detail += ": " + part
				}
				if r.section == secRules {
					chainDone = fmt.Sprintf("%q", r.name)
				}
			} else {
				st.Detail = r.whyNot(in, h)
			}
		}
		ex.Steps = append(ex.Steps, st)
	}
	return ex
}

// evalOrder lists the rules in the order decide considers them.
func (p *Policy) evalOrder() []*rule {
	var s set
	for _, r := range p.rules {
		*s.slot(r) = append(*s.slot(r), r)
	}
	var out []*rule
	for _, l := range [][]*rule{s.deny, s.chain, s.verify, s.allow, s.fbDeny, s.fbVerify, s.fbAllow} {
		out = append(out, l...)
	}
	return out
}

func (r *rule) whyNot(in *Input, h hit) string {
	must := r.must()
	switch h.cond {
	case condPaths:
		if must && h.idx >= 0 && h.idx < len(in.Paths) {
			return "no match: path " + in.Paths[h.idx].Path + " is not covered by paths/access"
		}
		if len(in.Paths) == 0 {
			return "no match: the action touches no path"
		}
		return "no match: no path touched matches paths/paths_outside/access"
	case condPrograms:
		if in.Effects == nil || len(in.Effects.Execs) == 0 {
			return "no match: no program runs"
		}
		if must {
			return "no match: not every program is listed"
		}
		return "no match: no listed program runs"
	case condDomains:
		if len(in.Hosts) == 0 {
			return "no match: no host is reached"
		}
		if must {
			l, v := hostPart(in, h.idx)
			return "no match: not every host is listed (" + l + v + ")"
		}
		return "no match: no listed domain is reached"
	case condPattern:
		return "no match: " + r.kind.String() + " pattern does not match"
	case condType, condRecursive, condMethods, condCapabilities, condCommands:
	}
	return "no match: " + h.cond.String()
}

// String renders a human-readable explanation; all includes the rules
// that do not list the action's type.
func (ex Explanation) String(all bool) string {
	var b strings.Builder
	r := ex.Result
	switch r.Effect {
	case None:
		b.WriteString("decision: none (no rule matched; the next tier decides)\n")
	case Deny, Verify, Allow:
		fmt.Fprintf(&b, "decision: %s", r.Effect)
		if r.Effect == Verify {
			fmt.Fprintf(&b, " (tier %d)", r.Tier)
		}
		fmt.Fprintf(&b, " [%s] by rule %q from %s\nreason: %s\n", r.Code(), r.Rule, r.Source, r.Reason)
	}
	b.WriteString("rules considered:\n")
	for _, s := range ex.Steps {
		if !s.Applies && !all {
			continue
		}
		mark := "  "
		switch {
		case s.Decided:
			mark = "=>"
		case s.Matched:
			mark = " +"
		}
		label := s.Section
		if s.Fallback {
			label += "/fallback"
		}
		if s.Effect == Verify {
			label += fmt.Sprintf(" tier %d", s.Tier)
		}
		if s.Section == "rules" {
			label += fmt.Sprintf(" %s priority %d", s.Effect, s.Priority)
		}
		fmt.Fprintf(&b, "%s %-28s %-26s %s (%s:%d)\n", mark, s.Rule, label, s.Detail, s.Source, s.Line)
	}
	return b.String()
}
