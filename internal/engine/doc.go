// Package engine is the privileged side of the own agent (DESIGN §7):
// the per-call pipeline that turns an agent's proposed tool call into a
// decision, an execution and an answer, and the broker through which
// the sandboxed agent, which holds no key and has no network, reaches
// its LLM.
//
//	p, gate, err := engine.Open(ws, engine.Options{Home: home, Executors: tools, Approver: a})
//	out := p.Handle(ctx, engine.Proposal{Session: "s1", CallID: id, Type: "read_file", Payload: raw})
//	b, err := engine.OpenBroker(ws, nil, nil)
//	resp, err := b.Stream(ctx, "s1", llm.RoleChat, req, send)
//
// Per call (Pipeline.Handle), in this order, each step able to end it:
//
//  1. executor lookup: a type no executor runs is refused (no_executor)
//     before anyone is asked to approve it;
//  2. the executor's plan (Preparer), taken before the decision: the
//     action's paths resolved, with the identity of what is along them.
//     A plan that cannot be taken refuses the call
//     (executor_prepare_failed);
//  3. the gate (shield.Gate.Evaluate) on the action and its plan: it judges
//     where each path leads too (a write leading out of the workspace is
//     path_resolved_elsewhere) and its hash binds the plan
//     (shield.PlanHash). Strict decode, guard, fast path,
//     policy, heuristics, IFC, judge and human when configured; the gate
//     writes its decision to the audit chain before it returns;
//  4. an ESCALATE nobody answered ends as BLOCK (escalation_unanswered);
//     an approver that fails or times out is the gate's approval_error
//     BLOCK;
//  5. the Chronicle snapshot of what the call may change: write and
//     delete path fields, the written and deleted paths of a shell
//     command's analysed effects, the whole workspace for git checkout
//     and pull. A snapshot that fails, or no Chronicle at all, refuses
//     the call (chronicle_snapshot_failed, audited);
//  6. the action re-hashed with the decided plan and compared with the
//     hash the gate decided (hash_mismatch), then the plan taken again
//     and compared with the decided one: a path that now leads elsewhere
//     or to another file is path_changed. Either is audited and nothing
//     runs;
//  7. the executor's optional Validate and Provision (its sandbox); a
//     failure refuses the call (executor_validate_failed,
//     executor_provision_failed);
//  8. a durable ActionStarted entry; if it cannot be written nothing runs
//     (audit_error);
//  9. the executor, with Call{Action, Plan, Session, CallID, Verdict,
//     State, Env}, then its Cleanup (always, once Provision succeeded); a
//     command executor (CommandEnver) names the command's environment
//     before the decision, the gate judges the command with it, and the
//     command is refused if the environment it would get differs; what
//     the call did that no snapshot covers becomes Outcome.Effects (a
//     command's sandbox reports the granted paths outside the workspace
//     it changed and the hosts its egress proxy let it reach; otherwise
//     the paths the snapshot skipped), which the runtime keeps with the
//     turn for /undo to name; a sandboxed command that failed on what
//     reads as a refusal gets a note naming its grants (SandboxEnd);
//  10. the result classified by Gate.ObserveReport (DLP labels, session
//     taint, injection); with Redact, what DLP masks is masked and what it
//     blocks withholds the result (result_withheld); a result that cannot
//     be classified is withheld and the session counted as having seen
//     critical data (result_observe_error); one that reads as orders gets
//     a warning first;
//  11. an ActionExecuted or ActionFailed entry holding the result's
//     SHA-256, size, exit code and duration, never its content; if it
//     cannot be written the result is withheld;
//  12. the answer: the result, or "Blocked by Parallax (rule): reason".
//
// Guarantees and defenses:
//   - Fail closed: no path allows on error. A panic in the pipeline is an
//     engine_internal_error BLOCK; in an executor an executor_panic error
//     result whose value is never shown; in a planner or snapshot a
//     refusal. The engine keeps serving after any of them.
//   - Every step's failure has a stable reason code (the Rule* constants)
//     and an audit entry; Outcome.Audited says whether all of them landed.
//   - Reasons and error texts the agent reads pass through DLP masking;
//     identifiers the agent chose are bounded before they are echoed.
//   - The broker holds the keys (llm.Pool reads them from the
//     environment); the agent's request names no model. Before a call it
//     checks the day's spend of all sessions against
//     agent.daily_budget_usd and the session's against
//     agent.session_budget_usd (llm_budget_exceeded, audited as
//     BudgetExhausted), refuses a paid model whose price it does not know,
//     and, with agent.outbound_dlp (default on), a request carrying
//     secrets. Usage (calls, tokens, cost in micro-USD) is added per day,
//     session and model to the workspace database, and each call is
//     audited as LLMUsage with model, tokens and cost only. A store that
//     cannot be read refuses the call; calls in flight together may pass
//     a budget by what they cost.
//
// The Runtime (OpenRuntime, Run) is the engine process around them:
//   - One engine per workspace: a non-blocking flock on
//     .parallax/engine.lock holding the pid; a second one gets a
//     RunningError naming it.
//   - The agent is spawned with an environment built from nothing (the
//     sandbox switch and the link's fd and token; never a provider key)
//     and must send a sandbox report before anything else: no report, a
//     probe that got through, or no sandbox while agent.sandbox is on stops
//     it for good (SandboxRefusedError), audited as SandboxCanaryResult,
//     like every start with agent.sandbox: off.
//   - Proposals name their session; an unknown session, or a writing tool
//     in an off-the-record one, is refused before the gate (audited). Only
//     the pipeline's ALLOW is sent as ALLOW; every proposal gets a verdict
//     and a result, and the clients see both.
//   - A crashed agent is restarted while its crashes within
//     agent.restart_window stay within agent.restart_budget, then Run
//     returns a CrashLoopError. A dying agent cancels its proposals,
//     model calls and approvals, and its turns end with agent_exited: no
//     turn or approval is left waiting for it.
//   - Clients use the ClientService on .parallax/engine.sock (0600, peers
//     of another uid refused with SO_PEERCRED); escalations are asked of
//     all of them through the approval broker, first answer wins.
//
// Executors (internal/tools/<group>) and the agent link plug in through
// the small interfaces here: Executor (with its optional Preparer,
// Validator, Provisioner and Cleaner), Snapshotter, Gate,
// Models, UsageStore.
package engine
