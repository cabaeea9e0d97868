// Package httpapi is the gate over HTTP (`parallax serve`): agents and
// frameworks we do not own send the actions they are about to run and get
// the gate's verdicts back, report what their tools returned, and read a
// session's taint.
//
//	POST /v1/evaluate        one action or {"requests":[…]} (≤ 256) → verdict(s), in order
//	POST /v1/observe         what a tool returned → 204; it taints the session
//	GET  /v1/sessions/{id}   the session's taint (level, source, records) and parent
//	GET  /healthz            liveness, unauthenticated
//	GET  /metrics            Prometheus text: decisions, latencies, requests, in flight
//
// Every route but /healthz needs "Authorization: Bearer <token>", the 64
// hex characters of DIR/.parallax/api.token. /metrics needs it too: the
// counts of blocks and escalations say what the agents on this machine
// are doing, and the agent being gated runs on this machine.
//
// # Defenses
//
//   - Fail closed: a body that does not decode strictly (unknown field,
//     duplicated key, trailing data, no "type") is refused with 400 naming
//     what was wrong, never evaluated leniently. A client must treat every
//     answer that is not a 200 with an ALLOW verdict as "do not run". An
//     evaluation past its deadline comes back BLOCK from the gate.
//   - A tool result that cannot be recorded (/v1/observe fails after the
//     body named its session) raises that session's taint to critical with
//     source "observe_failed": what the agent saw is unknown, so it is
//     treated as the worst. The failure is also written to the audit chain.
//   - Authentication: the presented token and the configured one are
//     hashed (SHA-256) and compared with crypto/subtle, so the comparison
//     takes the same time whatever the input. Missing or wrong tokens get
//     401 with WWW-Authenticate. The token file must be a regular file,
//     not a symlink, with no group or other permission bits, holding 64
//     hex characters; anything else stops the server from starting. The
//     token never appears in a log line or an error.
//   - Bounded work: bodies over the limit (2 MiB by default) get 413 and
//     are not read further; batches over 256 are refused; every request
//     has a deadline; the HTTP server has header, read, write and idle
//     timeouts and a header size limit.
//   - Loopback by default: Listen (and CheckAddr) refuse any address that
//     is not loopback unless remote binding is asked for, and check the
//     address actually bound ("localhost" is resolved by the system).
//   - Graceful shutdown: when the context ends, the server stops accepting,
//     drains requests in flight (up to a grace period, after which their
//     connections are closed and their contexts cancelled), and returns
//     only when every handler has returned, so the caller can then close
//     the workspace and flush the audit chain.
//   - Logs (log/slog, structured) carry method, route, path, status,
//     duration, session, the client's id and the decision, stage and rule
//     codes. They never carry payloads, results, reasons or credentials:
//     reasons are free of secrets by design but quote paths, hosts and
//     commands, which stay in the audit chain and the response.
package httpapi
