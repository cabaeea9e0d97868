// Package parallaxv1 is the generated Go code of the parallax.v1 gRPC
// protocol (proto/parallax/v1/*.proto): AgentService between the engine
// and its sandboxed agent, ClientService for the terminal, web and
// channel clients. Only doc.go and version.go are written by hand;
// regenerate the rest with proto/generate.sh (see proto/README.md).
//
// Receivers treat an unset or unknown enum value as its most restrictive
// meaning: a Verdict whose Decision is not ALLOW blocks.
package parallaxv1
