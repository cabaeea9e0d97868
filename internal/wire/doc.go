// Package wire converts between the runtime's Go types (chat requests and
// events, tool proposals) and their parallax.v1 protocol messages, in
// both directions, so the engine and the agent translate the same way.
//
// Guarantees: a conversion never invents content; an unknown stop reason
// maps to "other" and an unknown role or part is an error naming it, so
// a malformed message fails the request instead of reaching a model
// half-read.
//
// Text on the link is valid UTF-8 whatever the bytes (proto3 refuses
// anything else, and a refused message ends the stream): Text escapes a
// string losslessly and reversibly (UnText; the scheme is on Text), and
// ValidText applies it to every invalid string field of a message
// without changing the message it was given.
package wire
