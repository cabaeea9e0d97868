package shield

import (
	"context"
	"strings"

	"github.com/parallax/parallax/ifc"
	"github.com/parallax/parallax/inject"
)

// Injection in what the agent was shown (OWASP LLM01 indirect prompt
// injection, MITRE ATLAS AML.T0051.001): a tool result or fetched page
// that reads as orders to the agent taints the session, and the finding
// is audited. The taint is restricted: the IFC lattice has no integrity
// axis, and restricted is the lowest level at which the presets review
// what the agent does next under those orders (default: sends and
// schedules ESCALATE, memory writes BLOCK, so an injected order is not
// persisted for later sessions; strict is stricter).

// InjectionLevel is the taint a session takes when a result it was shown
// reads as instructions to the agent.
const InjectionLevel = ifc.Restricted

// CodeResultInjection is the audit code of a result that reads as
// instructions to the agent (instead of "result_<level>").
const CodeResultInjection = "result_injection"

// Observation is what Observe learned from a result.
type Observation struct {
	Level  ifc.Level // the classified level of the result
	Labels []string  // classifier labels (kinds, never data)
	// Injection names the injection rules the result matches (ids of
	// package inject); empty when it reads as plain data.
	Injection []string
	// Taint is the session's level raised by this result: the higher of
	// Level and, with an injection, InjectionLevel.
	Taint ifc.Level
}

// scanResult returns the injection rules a result matches.
func scanResult(text string) []string {
	if text == "" {
		return nil
	}
	return inject.ScanInjection(text, inject.ScopeResult)
}

// raiseInjection taints the session for an injection found in the
// result of an action of type typ.
func (g *Gate) raiseInjection(ctx context.Context, session, typ string, rules []string) error {
	if len(rules) == 0 {
		return nil
	}
	return g.raiseFirst(ctx, session, InjectionLevel, "injection in result of "+typ+": "+strings.Join(rules, ", "))
}
