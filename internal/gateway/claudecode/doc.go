// Package claudecode puts the gate in front of Claude Code as its
// PreToolUse and PostToolUse command hook (`parallax hook claude-code`).
// Every hook call is a new process: it finds the workspace, opens its
// database and audit chain, maps the tool call to a catalog action and
// answers on stdout. (Package hookd runs this same code in a warm
// per-workspace daemon and forwards hook processes' input to it.)
//
//	PreToolUse:  Bash → execute_command (in cwd), Read → read_file,
//	             Write → write_file, Edit/MultiEdit/NotebookEdit → edit_file,
//	             Glob/Grep → search_files, LS → list_directory,
//	             WebFetch → http_request, WebSearch → web_search,
//	             Task → create_agent, mcp__<server>__<tool> → mcp_call,
//	             anything else → mcp_call on server "claude-code".
//	             BLOCK → deny (Claude reads the reason), ESCALATE → ask
//	             (Claude Code's prompt is the human tier), ALLOW → no
//	             decision: the host's own permission rules still apply.
//	PostToolUse: tool_response is the action's result: DLP labels, session
//	             taint by session_id in the workspace database, labels on
//	             written files, an IFCClassified audit entry.
//
// Defenses:
//   - Never looser than no hook: ALLOW writes nothing, so the host's
//     rules decide as they would without Parallax.
//   - Fail closed: unreadable input, a missing or broken workspace, an
//     unset HOME, a gate that does not build, a panic, a decision that
//     cannot be written out → deny with a reason (or exit status 2, which
//     Claude Code treats as a refusal, when not even the event is known).
//     An uninitialised project is denied with a pointer to parallax init.
//   - Strict mapping: each tool's fields go to exactly the catalog's
//     payload fields or are dropped with the reason that dropping cannot
//     widen the call (labels, output shaping, narrowing filters). Fields
//     the mapping does not know make an ALLOW an ESCALATE; unknown tools
//     are gated as mcp_call and never allowed without a human. Input with
//     a duplicated key is refused (the host and the gate must not read
//     different copies). Relative paths resolve against cwd; a Glob
//     pattern is judged at the directory it reaches ("../../x/*").
//   - Undo before change: before a call that may run (ALLOW or ask)
//     writes or deletes, Chronicle snapshots its targets (file tools: the
//     file; Bash: the written and deleted paths of the shell analysis,
//     globs expanded, recursive selections by their root). If that fails,
//     the call is denied. Paths outside the workspace are skipped, and
//     each skip is audited (ChronicleSnapshotFailed, outside_workspace).
//   - Every decision is audited: the gate's verdicts, the hook's own
//     refusals, escalations and host-internal calls, snapshots.
//   - Unclassifiable results fail closed: the session is raised to
//     critical, the failure audited and reported to Claude.
//   - Reasons name rules and paths, never payload secrets; the audit
//     chain redacts what DLP finds.
//
// Limits: the hook sees only what the host shows it. A tool the host
// runs without a PreToolUse call, a binary that is missing (the host
// treats a failing hook command as non-blocking), or a Bash command whose
// effects the analyser cannot see are outside its reach; the kernel
// sandbox of Parallax's own agent mode is the stronger boundary.
package claudecode
