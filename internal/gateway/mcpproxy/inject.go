package mcpproxy

import "github.com/parallax/parallax/inject"

// The injection scanner lives in package inject, shared with the gate's
// Observe; these names keep the proxy's API.

// Scope says where an injection rule looks.
type Scope = inject.Scope

// InjectionRule is one pattern of text aimed at the agent.
type InjectionRule = inject.InjectionRule

// Scopes of injection rules.
const (
	ScopeResult      = inject.ScopeResult
	ScopeDescription = inject.ScopeDescription
	ScopeTurn        = inject.ScopeTurn
	ScopeBoth        = inject.ScopeBoth
)

// InjectionRules returns a copy of the rule table.
func InjectionRules() []InjectionRule { return inject.InjectionRules() }

// ScanInjection returns the ids of the rules of scope that text matches.
func ScanInjection(text string, scope Scope) []string { return inject.ScanInjection(text, scope) }
