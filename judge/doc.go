// Package judge is tier 2: an independent language model that decides
// what the deterministic tiers escalated, seeing only the action as data.
//
// Defenses:
//   - The evaluator sees the action's type and payload as JSON, the
//     analyser's findings and the session's taint level — no agent
//     identity, no conversation, no tools. Its prompt is compiled into the
//     binary.
//   - A per-workspace canary token is placed in the system prompt and must
//     open the answer ("CANARY: <token>" on the first line), compared in
//     constant time. A missing or wrong canary is a BLOCK (CanaryMissing is
//     audited): a model steered by the payload forgets it. A payload that
//     itself carries the canary is a BLOCK before any model is asked: the
//     token leaked, and an echo of it would prove nothing.
//   - The answer must parse into exactly one of ALLOW / BLOCK / ESCALATE
//     with a one-line reason; anything else is a BLOCK.
//   - Verdicts are cached by action hash and taint for a TTL (default 60 s);
//     a daily budget of evaluations (default 100) persists across restarts
//     through the workspace store and, when spent, hands the action to a
//     human (ESCALATE, BudgetExhausted audited); a per-session rate limit
//     does the same (RateLimitHit).
//   - Model errors and timeouts are a BLOCK with a reason: never an ALLOW.
//   - The Cortex-style supervisor is the same machinery with another
//     profile: it asks for a confidence, escalates to a human when it is
//     0.7 or lower or the data is secret, and caches for an hour per
//     session, tool and query.
package judge
