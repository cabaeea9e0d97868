package shield

import "encoding/json"

// Request is one proposed action as it reaches the gate (one line of
// `parallax shield evaluate`).
type Request struct {
	Session string `json:"session,omitempty"`
	// Parent names the session that spawned this one (a sub-agent): the
	// child starts with the parent's taint, and what it sees reaches the
	// parent.
	Parent  string          `json:"parent,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// Result is what the tool returned when the action ran; it is
	// classified and taints the session for later requests.
	Result string `json:"result,omitempty"`
	// Resolved is the executor's plan: the action's paths as they will be
	// touched, taken before the decision. The gate judges where they
	// lead, and the verdict's hash covers them (PlanHash).
	Resolved []ResolvedPath `json:"resolved,omitempty"`
}
