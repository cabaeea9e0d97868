// Package inject recognises text aimed at an agent rather than at its
// user: tool results, fetched pages and tool descriptions that try to give
// the model orders (OWASP LLM01 prompt injection, MITRE ATLAS AML.T0051,
// MCP tool poisoning).
//
// Scopes say where a rule looks: tool results, tool definitions, and the
// model's own voice as a server wrote it (ScopeTurn: the assistant turns
// and system prompt of an MCP sampling request, where a claim of the
// user's approval is forged), and text handed on to be acted on later
// (ScopeLater: a sub-agent's task, a message to an agent, a memory, a
// scheduled task), where orders to exfiltrate the environment or
// credentials, to change the gate's own state, to overwrite the agent's
// identity files or to disable safety are planted (later.go). Tool
// definitions are also read for steering: claims of priority over the
// client's other tools, HTML comments and zero-width or bidi format
// characters (steer.go; the last rule reads the raw text).
//
// Defenses: one static, ordered rule table, each rule with positive and
// negative examples the tests run; text is normalised (case, white space,
// zero-width and bidi format characters) and invisible Unicode tag
// characters are read as the ASCII they smuggle; bounded base64 runs are
// decoded once and rescanned. Every scan is bounded (maxScan bytes, at
// most maxDecoded base64 candidates of at most maxB64 bytes each).
package inject
