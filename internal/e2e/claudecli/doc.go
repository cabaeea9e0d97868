// Package claudecli drives the real Claude Code CLI offline: FakeAPI is a
// loopback server speaking the Anthropic Messages API wire format (POST
// /v1/messages, streamed as Server-Sent Events or answered as one JSON
// message, token counting, model listing), whose answers come from a
// script of model turns; Run starts `claude -p` against it with a
// throw-away HOME and no route off the machine.
//
// Guarantees:
//   - Deterministic: a request's answer depends only on its own body (the
//     conversation it belongs to and how many assistant turns it already
//     holds), never on arrival order, so retries and side requests (titles,
//     summaries) cannot shift the script.
//   - Recorded: every request (path, headers, body) is kept in order, so a
//     test can read what the CLI sent back: tool results, a hook's deny
//     reason, and whether a secret ever left the machine.
//   - Offline and contained: the server listens on 127.0.0.1 only; the CLI
//     runs with HOME in a temporary directory, telemetry, auto-update and
//     non-essential traffic off, and is killed (with its process group) at
//     the deadline or when the test ends.
//
// Limits: the fake model says exactly what the script says. It does not
// check that the CLI's requests are valid for the real API beyond parsing
// them; unknown paths are logged and answered with an empty JSON object.
package claudecli
