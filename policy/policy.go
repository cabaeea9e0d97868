package policy

import (
	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
)

// Stable reason codes (a public contract: audit, UI and tests use them).
const (
	ReasonDeny   = "policy_deny"
	ReasonVerify = "policy_verify"
	ReasonAllow  = "policy_allow"
)

// Vars are the values substituted into path patterns at compile time:
// "~" and "$HOME" become Home, "$WORKSPACE" becomes Workspace. Both must
// be absolute when a pattern uses them.
type Vars struct {
	Workspace string
	Home      string
}

// Effect is what a rule (or the policy as a whole) decides.
type Effect uint8

// Effects, from "no rule matched" to "allowed". The zero value None means
// tier 0 did not decide; the gate goes on to the next tier.
const (
	None Effect = iota
	Deny
	Verify
	Allow
)

var effectNames = [...]string{"none", "deny", "verify", "allow"}

// String returns none, deny, verify or allow.
func (e Effect) String() string {
	if int(e) < len(effectNames) {
		return effectNames[e]
	}
	return "unknown"
}

// Code returns the stable reason code of the effect ("" for None).
func (e Effect) Code() string {
	switch e {
	case Deny:
		return ReasonDeny
	case Verify:
		return ReasonVerify
	case Allow:
		return ReasonAllow
	case None:
		return ""
	}
	return ReasonDeny
}

// ParseEffect reads deny, verify, allow or none.
func ParseEffect(s string) (Effect, bool) {
	for i, n := range effectNames {
		if n == s {
			return Effect(i), true
		}
	}
	return None, false
}

// PathRef is one path an action touches.
type PathRef struct {
	Path   string        // absolute and cleaned; a pattern when Glob is set
	Access action.Access // 0 means unknown and is treated as every access
	Glob   bool          // shell glob (* ? [..]) that may name many paths
	// Mkdir marks a write that creates a directory, empty (mkdir,
	// create_directory); the guard judges it with CheckMkdir.
	Mkdir bool
	// Creates marks a tree "ROOT/**" any path of which may be created,
	// existing or not (shell.PathUse.Creates: git checking content out);
	// the guard judges it with CheckTreeWrite.
	Creates bool
	// Split marks a path reached only through a piece of a name split by
	// the channel that carried a listing (shell.PathUse.Split); a finding
	// on it says so, and names the channels that do not split.
	Split bool
}

// Input is what tier 0 looks at. The gate fills Paths and Hosts from the
// payload and from the shell analysis; NewInput does the same.
type Input struct {
	Action  *action.Action
	Paths   []PathRef      // every path touched: payload paths and shell-effect paths
	Hosts   []string       // every host reached, lowercase; "" for a host not known statically
	Effects *shell.Effects // nil unless the action runs a shell command

	// args are Paths prepared for matching, once per decision (decide);
	// nil when the caller matched rules directly.
	args []pathArg
}

// Result is the decision of Evaluate.
type Result struct {
	Effect Effect
	Tier   int    // minimum tier for Verify (1..3); 0 otherwise
	Rule   string // name of the deciding rule ("" for None)
	Source string // where the rule was written: "preset:default" or a file path
	Reason string // one sentence naming the rule and the offending part
}

// Code returns the stable reason code of the result ("" when no rule matched).
func (r Result) Code() string { return r.Effect.Code() }

// Policy is a compiled, immutable set of rules. It is safe for
// concurrent use.
type Policy struct {
	rules   []*rule              // every rule, in evaluation order
	byType  map[action.Type]*set // candidate rules per action type
	sources []string             // layer sources, base first
}

// set holds the candidate rules for one action type, by evaluation step.
type set struct {
	deny, verify, allow, chain []*rule
	fbDeny, fbVerify, fbAllow  []*rule
}

// Rules returns the number of rules in the policy.
func (p *Policy) Rules() int { return len(p.rules) }

// Sources lists where the policy's layers came from, base first.
func (p *Policy) Sources() []string { return append([]string(nil), p.sources...) }

// RuleInfo describes one rule for listings.
type RuleInfo struct {
	Name        string
	Section     string // deny, verify, allow or rules
	Effect      Effect
	Tier        int
	Fallback    bool
	Priority    int // rules: only
	Source      string
	Line        int
	Description string
	Reason      string
	ActionTypes []string // as written
}

// List describes the rules in evaluation order.
func (p *Policy) List() []RuleInfo {
	out := make([]RuleInfo, len(p.rules))
	for i, r := range p.rules {
		out[i] = RuleInfo{Name: r.name, Section: r.section.String(), Effect: r.effect,
			Tier: r.tier, Fallback: r.fallback, Priority: r.priority, Source: r.source,
			Line: r.line, Description: r.desc, Reason: r.reason,
			ActionTypes: append([]string(nil), r.typesWritten...)}
	}
	return out
}

// Has reports whether a rule with this name exists.
func (p *Policy) Has(name string) bool {
	for _, r := range p.rules {
		if r.name == name {
			return true
		}
	}
	return false
}
