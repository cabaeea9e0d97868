package heuristic

import (
	"sync"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/shell"
	"github.com/parallax/parallax/verdict"
)

// Severity ranks how bad the matched behaviour is (for reports; the
// Decision decides).
type Severity uint8

// Severities.
const (
	Low Severity = iota
	Medium
	High
	Critical
)

// String names the severity.
func (s Severity) String() string {
	switch s {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return "unknown"
}

// Example is an action a rule is tested against: its type and its JSON
// payload, as an agent would propose it.
type Example struct {
	Type    action.Type
	Payload string
}

// Rule is one tier 1 check.
type Rule struct {
	ID          string // stable reason code
	Description string
	Category    string
	Severity    Severity
	Decision    verdict.Decision // Block or Escalate, never Allow
	Types       []action.Type    // the action types the rule reads
	// Match returns a detail naming the offending part (a path with the
	// home as ~, a program, a host, a secret's kind) — never a secret value.
	Match    func(in *Input) (detail string, ok bool)
	Positive []Example // must fire this rule
	Negative []Example // must not fire it
}

// Input is the analysed action a rule judges.
type Input struct {
	Action *action.Action
	// Effects is the shell analysis of execute_command, and of
	// create_schedule when it carries a command; nil otherwise.
	Effects   *shell.Effects
	Workspace string // absolute, clean
	Home      string // absolute, clean
	// TempDir is the command's private temp directory when the executor
	// named it (shield.Request.Env's TMPDIR), "" otherwise: advice to the
	// agent names $TMPDIR only where it resolves.
	TempDir string
}

// Finding is a rule that fired and what it fired on. It holds the rule's
// fields by value, not a pointer into the table: whatever a caller does
// with a finding, the table stays as it was.
type Finding struct {
	ID          string // the rule's stable reason code
	Description string
	Category    string
	Severity    Severity
	Decision    verdict.Decision
	Detail      string
}

// finding is what rule r fired on.
func finding(r *Rule, detail string) Finding {
	return Finding{ID: r.ID, Description: r.Description, Category: r.Category,
		Severity: r.Severity, Decision: r.Decision, Detail: detail}
}

// ruleIndex lists, per action type, the rules that read it: BLOCK rules
// first, then ESCALATE rules, each in table order. Walking it front to
// back and stopping at the first match is Evaluate's contract.
type ruleIndex map[action.Type][]*Rule

// index is built once from the table, on first use: the rules by type,
// and the BLOCK rules for execute_command in table order (embeddedShell,
// see instruct.go).
func index() *ruleIndexes {
	indexOnce.Do(func() { indexed = buildIndex(table()) })
	return &indexed
}

var (
	indexOnce sync.Once
	indexed   ruleIndexes
)

// ruleIndexes are the indexes of the table.
type ruleIndexes struct {
	byType        ruleIndex
	embeddedShell []*Rule
}

func buildIndex(rules []Rule) ruleIndexes {
	idx := ruleIndex{}
	for _, d := range [...]verdict.Decision{verdict.Block, verdict.Escalate} {
		for i := range rules {
			r := &rules[i]
			if r.Decision != d {
				continue
			}
			for _, t := range r.Types {
				idx[t] = append(idx[t], r)
			}
		}
	}
	var embedded []*Rule
	for _, r := range idx[action.ExecuteCommand] {
		if r.Decision == verdict.Block {
			embedded = append(embedded, r)
		}
	}
	return ruleIndexes{byType: idx, embeddedShell: embedded}
}

// Evaluate returns the deciding finding: the first matching BLOCK rule in
// table order, else the first matching ESCALATE rule. ok is false when no
// rule fires. A nil action fires nothing; the gate refuses those earlier.
func Evaluate(in *Input) (Finding, bool) {
	if in == nil || in.Action == nil {
		return Finding{}, false
	}
	for _, r := range index().byType[in.Action.Type] {
		if d, ok := r.Match(in); ok {
			return finding(r, d), true
		}
	}
	return Finding{}, false
}

// EvaluateAll returns every rule that fires, deciding rule first (BLOCK
// rules, then ESCALATE rules, each in table order). It is for explain.
func EvaluateAll(in *Input) []Finding {
	if in == nil || in.Action == nil {
		return nil
	}
	var out []Finding
	for _, r := range index().byType[in.Action.Type] {
		if d, ok := r.Match(in); ok {
			out = append(out, finding(r, d))
		}
	}
	return out
}
