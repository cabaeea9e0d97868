package verdict

import "encoding/json"

// JudgeInput is one escalated action, as data, for tier 2 (the judge) or
// the supervisor. It lives in this leaf so that the gate (shield) speaks
// to a judge without linking one: judge.Input is this type.
type JudgeInput struct {
	Session  string
	Type     string
	Payload  json.RawMessage
	Hash     string   // the action's canonical hash: the cache key
	Findings []string // what the deterministic tiers found (rule: reason)
	Taint    string   // the session's taint level name
	Secret   bool     // the data is secret (supervisor: always a human)
	Scope    string   // supervisor cache scope (tool and query); "" uses Hash
}
