package policy

import (
	"sort"
	"strconv"
	"strings"

	"github.com/parallax/parallax/action"
)

// build indexes rules (already in evaluation order: sections, then the
// rules: chain by priority) by action type.
func build(sources []string, rules []*rule) *Policy {
	p := &Policy{rules: rules, byType: map[action.Type]*set{}, sources: sources}
	for _, r := range rules {
		for _, t := range r.types {
			s := p.byType[t]
			if s == nil {
				s = &set{}
				p.byType[t] = s
			}
			*s.slot(r) = append(*s.slot(r), r)
		}
	}
	return p
}

func (s *set) slot(r *rule) *[]*rule {
	switch {
	case r.section == secRules:
		return &s.chain
	case r.fallback && r.effect == Deny:
		return &s.fbDeny
	case r.fallback && r.effect == Verify:
		return &s.fbVerify
	case r.fallback:
		return &s.fbAllow
	case r.effect == Deny:
		return &s.deny
	case r.effect == Verify:
		return &s.verify
	}
	return &s.allow
}

// With layers user policies over p and returns the merged policy; p and
// the layers are not changed. All deny rules (base first, then each
// layer) are evaluated first, then every verify rule, then the allow
// rules, then the fallbacks; the rules: entries of all layers form one
// chain ordered by priority (ties: base first, then file order). So a
// layer can add restrictions anywhere, but its allow rules cannot lower a
// tier or lift a deny that another layer imposes.
func (p *Policy) With(user ...*Policy) *Policy {
	var sections, chain []*rule
	sources := append([]string(nil), p.sources...)
	for _, q := range append([]*Policy{p}, user...) {
		if q == nil {
			continue
		}
		if q != p {
			sources = append(sources, q.sources...)
		}
		for _, r := range q.rules {
			if r.section == secRules {
				chain = append(chain, r)
			} else {
				sections = append(sections, r)
			}
		}
	}
	return build(sources, append(sortSections(sections), sortChain(chain)...))
}

// Evaluate decides tier 0 for one action: the first matching deny rule
// denies; else the highest tier over every matching verify rule; else the
// first matching allow rule allows; else the fallback rules, in the same
// order; else None. A rules: chain yields at most its first match, which
// then counts in its effect's step. A nil or unknown action is denied.
func (p *Policy) Evaluate(in *Input) Result {
	res, _ := p.decide(in)
	return res
}

func (p *Policy) decide(in *Input) (Result, *rule) {
	if p == nil {
		return Result{Effect: Deny, Rule: "policy_missing", Reason: "no policy is loaded"}, nil
	}
	if in == nil || in.Action == nil || in.Action.Payload == nil {
		return Result{Effect: Deny, Rule: "policy_no_action", Reason: "policy input carries no action"}, nil
	}
	s := p.byType[in.Action.Type]
	if s != nil && len(in.Paths) > 0 && in.args == nil {
		// Every rule looks at the same paths: prepare them once.
		var buf [8]pathArg
		local := *in
		local.args = buf[:0]
		for i := range in.Paths {
			local.args = append(local.args, prepare(&in.Paths[i]))
		}
		in = &local
	}
	if s == nil {
		if !action.Known(in.Action.Type) {
			return Result{Effect: Deny, Rule: "policy_unknown_type",
				Reason: "action type " + strconv.Quote(string(in.Action.Type)) + " is not in the catalog"}, nil
		}
		return Result{}, nil
	}
	if r, h := first(s.deny, in); r != nil {
		return r.result(in, h), r
	}
	cr, ch := first(s.chain, in)
	if cr != nil && cr.effect == Deny {
		return cr.result(in, ch), cr
	}
	vr, vh := highest(s.verify, in)
	if cr != nil && cr.effect == Verify && (vr == nil || cr.tier > vr.tier) {
		vr, vh = cr, ch
	}
	if vr != nil {
		return vr.result(in, vh), vr
	}
	if r, h := first(s.allow, in); r != nil {
		return r.result(in, h), r
	}
	if cr != nil {
		return cr.result(in, ch), cr
	}
	if r, h := first(s.fbDeny, in); r != nil {
		return r.result(in, h), r
	}
	if r, h := highest(s.fbVerify, in); r != nil {
		return r.result(in, h), r
	}
	if r, h := first(s.fbAllow, in); r != nil {
		return r.result(in, h), r
	}
	return Result{}, nil
}

func first(rs []*rule, in *Input) (*rule, hit) {
	for _, r := range rs {
		if ok, h := r.match(in); ok {
			return r, h
		}
	}
	return nil, hit{}
}

// highest returns the first matching rule with the highest tier.
func highest(rs []*rule, in *Input) (*rule, hit) {
	var best *rule
	var bh hit
	for _, r := range rs {
		if best != nil && r.tier <= best.tier {
			continue
		}
		if ok, h := r.match(in); ok {
			best, bh = r, h
		}
	}
	return best, bh
}

func (r *rule) result(in *Input, h hit) Result {
	var b strings.Builder
	b.Grow(160)
	b.WriteString("policy rule \"")
	b.WriteString(r.name) // names are restricted to [A-Za-z0-9_.-]
	b.WriteString("\"")
	switch r.effect {
	case Deny:
		b.WriteString(" denies ")
	case Verify:
		b.WriteString(" requires tier ")
		b.WriteByte(byte('0' + r.tier))
		b.WriteString(" for ")
	case Allow, None:
		b.WriteString(" allows ")
	}
	b.WriteString(string(in.Action.Type))
	if label, val := r.partOf(in, h); label != "" {
		b.WriteString(" (")
		b.WriteString(label)
		b.WriteString(val)
		b.WriteString(")")
	}
	if r.reason != "" {
		b.WriteString(": ")
		b.WriteString(r.reason)
	}
	return Result{Effect: r.effect, Tier: r.tier, Rule: r.name, Source: r.source, Reason: b.String()}
}

// part names the offending part of the action: a path, program, host or
// capability. It never includes command text, bodies or URLs, which may
// carry secrets.
func (r *rule) part(in *Input, h hit) string {
	label, val := r.partOf(in, h)
	return label + val
}

// partOf returns the part as a label ("path ") and a value, so that
// result can write them without building a string first.
func (r *rule) partOf(in *Input, h hit) (string, string) {
	switch h.cond {
	case condPaths:
		if h.idx >= 0 && h.idx < len(in.Paths) {
			return "path ", in.Paths[h.idx].Path
		}
	case condPrograms:
		if in.Effects != nil && h.idx >= 0 && h.idx < len(in.Effects.Execs) {
			if n := in.Effects.Execs[h.idx].Name; n != "" {
				return "program ", n
			}
			return "a dynamic command name", ""
		}
	case condDomains:
		return hostPart(in, h.idx)
	case condCapabilities:
		if h.idx >= 0 && h.idx < capCount(in) {
			return "capability ", capName(in, h.idx)
		}
	case condCommands:
		return "command matches a commands pattern", ""
	case condMethods:
		if p, ok := in.Action.Payload.(*action.HTTPRequestPayload); ok {
			return "method ", strings.ToUpper(p.Method)
		}
	case condRecursive:
		return "recursive", ""
	case condPattern:
		return r.patternPart(in, h.idx)
	case condType:
	}
	return "", ""
}

func hostPart(in *Input, i int) (string, string) {
	if i < 0 || i >= len(in.Hosts) {
		return "", ""
	}
	if in.Hosts[i] == "" {
		return "a host not known statically", ""
	}
	return "host ", in.Hosts[i]
}

func (r *rule) patternPart(in *Input, i int) (string, string) {
	switch r.kind {
	case kindShell:
		return "command matches the shell pattern", ""
	case kindDomain:
		return hostPart(in, i)
	case kindPath:
		if i >= 0 && i < len(in.Paths) {
			return "path ", in.Paths[i].Path
		}
	case kindCapability:
		if i >= 0 && i < capCount(in) {
			return "capability ", capName(in, i)
		}
	case kindTool, kindNone:
	}
	return "", ""
}

// typeSet reports whether r applies to t.
func (r *rule) appliesTo(t action.Type) bool {
	i := sort.Search(len(r.types), func(i int) bool { return typeIndex(r.types[i]) >= typeIndex(t) })
	return i < len(r.types) && r.types[i] == t
}

var typeIndexes = func() map[action.Type]int {
	m := map[action.Type]int{}
	for i, t := range action.Types() {
		m[t] = i
	}
	return m
}()

func typeIndex(t action.Type) int {
	if i, ok := typeIndexes[t]; ok {
		return i
	}
	return -1
}
