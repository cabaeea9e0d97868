package policy

import (
	"github.com/parallax/parallax/internal/glob"
	"path"
	"strings"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// match tests every condition of r against in (the action type was
// already filtered by the per-type index). On success h names the
// offending part; on failure h.cond names the condition that failed.
func (r *rule) match(in *Input) (ok bool, h hit) {
	must := r.must()
	h = hit{cond: condType, idx: -1}
	if r.recursive >= 0 {
		rec, has := recursiveOf(in.Action)
		if !has || rec != (r.recursive == 1) {
			return false, hit{condRecursive, -1}
		}
		h = hit{condRecursive, -1}
	}
	if len(r.methods) > 0 {
		if !r.matchMethod(in.Action) {
			return false, hit{condMethods, -1}
		}
		h = hit{condMethods, -1}
	}
	best := h
	found := false
	try := func(c cond, idx int, good bool) bool {
		if !good {
			h = hit{c, -1}
			return false
		}
		if !found {
			best, found = hit{c, idx}, true
		}
		return true
	}
	if r.pathCond {
		idx, good := r.matchPaths(in.Paths, in.args, must)
		if !try(condPaths, idx, good) {
			return false, h
		}
	}
	if len(r.programs) > 0 {
		idx, good := r.matchPrograms(in.Effects, must)
		if !try(condPrograms, idx, good) {
			return false, h
		}
	}
	if len(r.domains) > 0 {
		idx, good := eachOf(len(in.Hosts), must, func(i int) bool { return r.matchHost(in.Hosts[i], must) })
		if !try(condDomains, idx, good) {
			return false, h
		}
	}
	if len(r.capabilities) > 0 {
		idx, good := r.matchCaps(in, must)
		if !try(condCapabilities, idx, good) {
			return false, h
		}
	}
	if len(r.commands) > 0 {
		cmd, has := commandOf(in.Action)
		good := false
		for _, re := range r.commands {
			if has && re.MatchString(cmd) {
				good = true
				break
			}
		}
		if !try(condCommands, -1, good) {
			return false, h
		}
	}
	if r.kind != kindNone {
		idx, good := r.matchPattern(in, must)
		if !try(condPattern, idx, good) {
			return false, h
		}
	}
	return true, best
}

// eachOf applies may (some element) or must (every element, at least one)
// semantics; idx is the first matching element, or 0 under must.
func eachOf(n int, must bool, f func(int) bool) (int, bool) {
	if must {
		if n == 0 {
			return -1, false
		}
		for i := 0; i < n; i++ {
			if !f(i) {
				return i, false
			}
		}
		return 0, true
	}
	for i := 0; i < n; i++ {
		if f(i) {
			return i, true
		}
	}
	return -1, false
}

// matchPaths looks at the path uses whose access intersects the rule's
// access list (every use when none is given). Under may, one of them
// satisfies the path predicate; under must, all of them do and there is
// at least one. Uses outside the access list are not looked at.
// args, when it holds one entry per PathRef, is prs already prepared.
func (r *rule) matchPaths(prs []PathRef, args []pathArg, must bool) (int, bool) {
	acc := r.access
	if acc == 0 {
		acc = allAccess
	}
	first := -1
	for i := range prs {
		if accessOf(&prs[i])&acc == 0 {
			continue
		}
		var ok bool
		if len(args) == len(prs) {
			ok = r.pathOK(&args[i], must)
		} else {
			a := prepare(&prs[i])
			ok = r.pathOK(&a, must)
		}
		switch {
		case must && !ok:
			return i, false
		case !must && ok:
			return i, true
		case first < 0:
			first = i
		}
	}
	if must && first >= 0 {
		return first, true
	}
	return -1, false
}

// pathOK is the path predicate: in some "paths" pattern (when given) and
// in no "paths_outside" pattern. Under may, "in" over-approximates and
// "not in" under-approximates; under must, the reverse.
func (r *rule) pathOK(a *pathArg, must bool) bool {
	if len(r.paths) > 0 {
		in := false
		for _, g := range r.paths {
			if g.test(a, must) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, g := range r.outside {
		if g.test(a, !must) {
			return false
		}
	}
	return true
}

// matchPrograms: may — some exec is a listed program (a dynamic command
// name counts) and, when subcommands are given, some argument is one;
// must — every exec is a listed program whose first non-flag argument is
// a listed subcommand.
func (r *rule) matchPrograms(e *shell.Effects, must bool) (int, bool) {
	if e == nil {
		return -1, false
	}
	return eachOf(len(e.Execs), must, func(i int) bool {
		x := &e.Execs[i]
		if x.Name == "" {
			return !must
		}
		if !contains(r.programs, x.Name) {
			return false
		}
		if len(r.subcommands) == 0 {
			return true
		}
		if must {
			for _, a := range x.Args {
				if a == "" || a[0] == '-' {
					continue
				}
				return contains(r.subcommands, a)
			}
			return false
		}
		for _, a := range x.Args {
			if a == "" || contains(r.subcommands, a) {
				return true
			}
		}
		return false
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// matchHost matches one host against the domain patterns: "*" any host,
// "*.example.com" any subdomain, other globs by path.Match, else equality.
// An unknown host ("") may be anything.
func (r *rule) matchHost(h string, must bool) bool {
	if h == "" {
		return !must
	}
	h = normHost(h)
	for _, d := range r.domains {
		switch {
		case d == "*":
			return true
		case strings.HasPrefix(d, "*.") && !glob.HasDoublestarMeta(d[2:]):
			if strings.HasSuffix(h, d[1:]) {
				return true
			}
		case glob.HasDoublestarMeta(d):
			if ok, _ := path.Match(d, h); ok {
				return true
			}
		case d == h:
			return true
		}
	}
	return false
}

// normHost lowercases and drops a trailing dot; it allocates only when
// the host needs changing.
func normHost(h string) string {
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if c := h[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

// matchCaps matches the action's capabilities: shell tag names, then its
// sink name (index len(Tags)).
func (r *rule) matchCaps(in *Input, must bool) (int, bool) {
	n := 0
	if in.Effects != nil {
		n = len(in.Effects.Tags)
	}
	return eachOf(n+1, must, func(i int) bool { return contains(r.capabilities, capName(in, i)) })
}

func capName(in *Input, i int) string {
	if in.Effects != nil && i < len(in.Effects.Tags) {
		return in.Effects.Tags[i].Kind.String()
	}
	return in.Action.Sink().String()
}

func capCount(in *Input) int {
	if in.Effects != nil {
		return len(in.Effects.Tags) + 1
	}
	return 1
}

// matchPattern applies a rules: entry's regex to its kind's subject.
func (r *rule) matchPattern(in *Input, must bool) (int, bool) {
	re := r.pattern
	switch r.kind {
	case kindTool:
		return -1, re.MatchString(string(in.Action.Type))
	case kindShell:
		cmd, has := commandOf(in.Action)
		return -1, has && re.MatchString(cmd)
	case kindDomain:
		return eachOf(len(in.Hosts), must, func(i int) bool {
			if in.Hosts[i] == "" {
				return !must
			}
			return re.MatchString(normHost(in.Hosts[i]))
		})
	case kindPath:
		return eachOf(len(in.Paths), must, func(i int) bool {
			p, c := classify(&in.Paths[i])
			switch c {
			case pathUnknown:
				return !must
			case pathGlob:
				if must {
					return false
				}
				pre, _ := shellLiteral(p)
				return re.MatchString(p) || re.MatchString(pre)
			case pathConcrete:
			}
			return re.MatchString(p)
		})
	case kindCapability:
		return eachOf(capCount(in), must, func(i int) bool { return re.MatchString(capName(in, i)) })
	case kindNone:
	}
	return -1, false
}

func (r *rule) matchMethod(a *action.Action) bool {
	p, ok := a.Payload.(*action.HTTPRequestPayload)
	if !ok {
		return false
	}
	for _, m := range r.methods {
		if strings.EqualFold(m, p.Method) {
			return true
		}
	}
	return false
}

func recursiveOf(a *action.Action) (bool, bool) {
	switch p := a.Payload.(type) {
	case *action.DeleteFilePayload:
		return p.Recursive, true
	case *action.ListDirectoryPayload:
		return p.Recursive, true
	}
	return false, false
}

// commandOf returns the shell command an action runs, if any.
func commandOf(a *action.Action) (string, bool) {
	switch p := a.Payload.(type) {
	case *action.ExecuteCommandPayload:
		return p.Command, true
	case *action.CreateSchedulePayload:
		return p.Command, p.Command != ""
	}
	return "", false
}
