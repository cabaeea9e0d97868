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
	// Env is the environment a command will run with, as the executor
	// that runs it sets it: only the names in EnvNames are used (env.go),
	// and only values of the scrubbed environment belong here, never a
	// secret. Without it (the Claude Code hook, the MCP proxy, the HTTP
	// API), $TMPDIR, mktemp's names and a loop's globs stay unknown.
	Env map[string]string `json:"env,omitempty"`
}
