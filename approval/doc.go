// Package approval is tier 3: a human decides what the deterministic tiers
// and the judge escalated. A Broker sends each request to every attached
// Channel (a Terminal on /dev/tty, a Webhook, the web UI when it exists, a
// Script in tests), takes the first answer, tells the other channels the
// request has ended, and records every step in the audit chain.
//
//	b, err := approval.New(approval.Config{Recorder: auditLog, Channels: []approval.Channel{term, hook}})
//	ans, err := b.Request(ctx, approval.Ask{Session: s, ActionType: t, ActionHash: h,
//		Payload: raw, Reason: v.Reason, Rule: v.Rule, Stage: string(v.Stage),
//		Scope: approval.ScopeOf(act, effects)})
//	v = ans.Verdict(h) // ALLOW or BLOCK, stage human, tier 3
//
// # Defenses
//
//   - Fail closed: the zero Decision is Deny, and Request returns Allow only
//     for a human's allow on a channel or a live grant, after the outcome
//     is durable in the audit chain. A timeout (default 300 s), a
//     cancelled context, a closed broker, no channel able to show the
//     request, a malformed request, an unreadable grant store and an
//     audit failure all deny. Every non-nil error comes with a Deny.
//     Nothing is shown to a human before the request is recorded.
//     A malformed request (bad hash, identifiers, oversized payload) and
//     a request to a closed broker are denied with an error and not
//     recorded here: the caller records its own BLOCK.
//   - First answer wins: resolution is one compare-and-set under the
//     broker's lock; the other channels are told (Channel.Resolved), and
//     any later answer is refused with ErrResolved and recorded as a late
//     answer (an ApprovalRequested entry with code approval_late_answer).
//   - No prompt fatigue: at most HourlyLimit requests (default 10) reach
//     humans in any rolling hour, over all sessions of the workspace (a
//     per-session cap would not stop an agent that spawns sessions); past
//     it the request is denied without asking and recorded as
//     RateLimitHit. A request for the same session, rule and action
//     hash as a pending one joins it instead of prompting again.
//   - Secrets never reach a channel: channels get a copy whose payload is
//     decoded (so JSON escapes cannot hide a token), redacted string by
//     string and then as a whole by the dlp package, and re-scanned; if
//     anything is left, the payload is not shown at all. Session, reason,
//     rule and the offered pattern are redacted too. The Terminal escapes
//     control, bidirectional and invisible characters so a payload cannot
//     repaint the screen or hide part of itself.
//   - Narrow grants: a human may remember an allow for the session, for
//     the exact action hash or for the Pattern the request offers (same
//     action type, the one program, every path under one directory at
//     least two levels deep, the one host; a field left empty means
//     "none", never "any"). A grant also requires the same escalating
//     rule, so an action escalated for a new reason is asked again. No
//     pattern is offered for opaque scopes (interpreters, eval, dynamic
//     names, globs, unknown programs, unresolved hosts) or for action
//     types whose risk is in free text (mail, messages, MCP calls…).
//     Grants expire after GrantTTL (default 1 h) or when the session ends
//     (EndSession). A grant never turns a BLOCK into an ALLOW: only
//     ESCALATE verdicts reach the broker.
//   - Webhook answers are authenticated: HMAC-SHA256 over the signing time
//     and the body with a shared secret of at least 32 bytes, compared in
//     constant time, within a 5-minute window; bodies are bounded (64 KiB)
//     and strictly decoded; an answer can only name a request that was
//     sent to that webhook. Requests go to https, or http on loopback,
//     without following redirects; errors name the URL's origin only.
//   - Typed-ahead input does not answer: the Terminal ignores lines read
//     while no request is on screen.
//
// # What is recorded
//
// ApprovalRequested (ESCALATE, the escalating stage and rule, the channel
// names, the count in the window), then one of ActionApproved (rule
// approval_allowed, or approval_grant with the grant id when a grant
// covered it without asking), ActionBlocked (approval_denied,
// approval_unavailable, approval_cancelled, approval_error),
// ApprovalTimeout or RateLimitHit, each with the request id in
// detail.ref. Reasons are one sentence and carry no secrets.
//
// State (the request cap and the grants) is behind the State interface;
// MemoryState keeps it for the life of the process.
package approval
