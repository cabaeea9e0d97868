// Package wire converts between the runtime's Go types (llm requests and
// events, tool proposals) and their parallax.v1 protocol messages, in
// both directions, so the engine and the agent translate the same way.
//
// Guarantees: a conversion never invents content; an unknown stop reason
// maps to "other" and an unknown role or part is an error naming it, so
// a malformed message fails the request instead of reaching a model
// half-read.
package wire
