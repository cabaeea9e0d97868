package policy

import (
	"regexp"

	"github.com/parallax/parallax/action"
)

// section is where a rule was written.
type section uint8

const (
	secDeny section = iota
	secVerify
	secAllow
	secRules
)

var sectionNames = [...]string{"deny", "verify", "allow", "rules"}

func (s section) String() string { return sectionNames[s] }

// kind is the subject of a rules: (Cortex-style) entry.
type kind uint8

const (
	kindNone       kind = iota // a deny/verify/allow entry
	kindTool                   // the action type name
	kindShell                  // the raw command string
	kindDomain                 // every host reached
	kindPath                   // every path touched
	kindCapability             // shell tag names and the sink name
)

var kindNames = [...]string{"", "tool", "shell", "domain", "path", "capability"}

func (k kind) String() string { return kindNames[k] }

// rule is one compiled rule. Every condition that is set must hold
// (conditions combine with AND; the values of one condition with OR).
type rule struct {
	name, desc, reason, source string
	line                       int
	section                    section
	effect                     Effect
	tier                       int
	fallback                   bool
	priority                   int
	order                      int // position in its file, for a stable sort of rules:

	typesWritten []string
	types        []action.Type // expanded against the catalog

	paths, outside []*pathPat
	access         action.Access // 0: any access
	pathCond       bool          // paths, paths_outside or access given

	commands     []*regexp.Regexp
	programs     []string
	subcommands  []string
	domains      []string // lowercase host globs
	capabilities []string
	methods      []string // uppercase
	recursive    int8     // -1 unset, 0 false, 1 true

	kind    kind
	pattern *regexp.Regexp
}

// must reports whether the rule matches with "must" semantics: an allow
// rule has to hold for every path, host, program and capability of the
// action; deny and verify rules need only one ("may").
func (r *rule) must() bool { return r.effect == Allow }

// cond names a rule condition, for reasons and explanations.
type cond uint8

const (
	condType cond = iota
	condRecursive
	condMethods
	condPaths
	condPrograms
	condDomains
	condCapabilities
	condCommands
	condPattern
)

var condNames = [...]string{"action_types", "recursive", "methods", "paths", "programs",
	"domains", "capabilities", "commands", "pattern"}

func (c cond) String() string { return condNames[c] }

// hit says which condition decided a match (or failed it) and the index
// of the offending element (path, exec, host, tag) when there is one.
type hit struct {
	cond cond
	idx  int
}

const allAccess = action.AccessRead | action.AccessWrite | action.AccessDelete

func accessOf(pr *PathRef) action.Access {
	if pr.Access == 0 {
		return allAccess
	}
	return pr.Access
}
