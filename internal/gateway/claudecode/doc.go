// Package claudecode puts the gate in front of Claude Code (2.1 and
// earlier) as its command hook (`parallax hook claude-code`) for the
// events around a tool call: PreToolUse, PostToolUse, PostToolUseFailure,
// PreSkillShellCommand (and PostToolBatch when registered), and for the
// events that carry something to the model outside a tool result:
// SessionStart, InstructionsLoaded, DirectoryAdded, UserPromptSubmit,
// UserPromptExpansion. Every hook
// call is a new process: it finds the workspace, opens its database and
// audit chain, maps the tool call to a catalog action and answers on
// stdout. (Package hookd runs this same code in a warm per-workspace
// daemon and forwards hook processes' input to it.)
//
//	PreToolUse:  Bash, Monitor (command) → execute_command (in cwd),
//	             Read, NotebookRead → read_file, Write → write_file,
//	             Edit/MultiEdit/NotebookEdit → edit_file,
//	             Glob/Grep → search_files, LS → list_directory,
//	             WebFetch, Monitor (ws) → http_request, WebSearch → web_search,
//	             Agent (Task before 2.1), Workflow → create_agent,
//	             SendMessage → agent_message,
//	             CronCreate, ScheduleWakeup → create_schedule,
//	             CronDelete → delete_schedule, CronList → list_schedules,
//	             PushNotification, SendFeedback → send_message,
//	             ReadMcpResourceTool → mcp_call resources/read,
//	             mcp__<server>__<tool> → mcp_call.
//	             The host's bookkeeping (TodoWrite, TaskCreate/Get/Update/
//	             List/Output/Stop, plan mode, AskUserQuestion, ToolSearch,
//	             Skill, …) is audited and left to the host (hostInternal).
//	             Tools whose effect the catalog cannot express
//	             (EnterWorktree, ExitWorktree, RemoteTrigger, PowerShell, …)
//	             and tools Parallax does not know are gated as mcp_call on
//	             server "claude-code" and always go to a human, with a
//	             reason that says what the tool is or that it is unknown.
//	             A Monitor streams its output to the model with no
//	             PostToolUse: before it may run, the session is tainted to
//	             what that output may show — the content of the files it
//	             reads now (within the bounds below), their labels, and
//	             critical for output the hook cannot see (a program whose
//	             output is not made of the files it reads, unresolved
//	             shell code, the network, the environment, a WebSocket).
//	             If that taint cannot be recorded, it is denied.
//	             BLOCK → deny (Claude reads the reason), ESCALATE → ask
//	             (Claude Code's prompt is the human tier), ALLOW → no
//	             decision: the host's own permission rules still apply.
//	PreSkillShellCommand: a shell line a skill runs itself is judged as
//	             the Bash call it is; BLOCK, and ESCALATE too (the host has
//	             no prompt for it), refuse it with exit status 2.
//	PostToolUse, PostToolUseFailure, PostToolBatch: what the model is
//	             shown is the action's result — tool_response, and for a
//	             failure the error text (a failing command's output): DLP
//	             labels, session taint by session_id in the workspace
//	             database, labels on written files, an IFCClassified audit
//	             entry.
//	SessionStart, InstructionsLoaded, DirectoryAdded: the memory files
//	             Claude Code loads into the context by itself (CLAUDE.md,
//	             .claude/CLAUDE.md, .claude/rules/**.md and CLAUDE.local.md
//	             of the session's directory and each one above it, the
//	             user's and the managed ones, the auto memory's MEMORY.md;
//	             the file InstructionsLoaded names; an added directory's)
//	             and what they @import, resolved as Claude Code resolves
//	             them (relative to the importing file, ~ the home, not
//	             inside code or HTML comments; MaxImportDepth hops, cycles
//	             end), are classified like a tool result: DLP on the
//	             content, the paths' labels (an import of ~/.ssh/id_rsa is
//	             critical by its path, unread), the activity table. The
//	             session's taint rises to each, journalled first.
//	UserPromptSubmit, UserPromptExpansion: the prompt (and a slash
//	             command's arguments) likewise, before the model reads it.
//	             Any other event is refused with exit status 2, naming it.
//
// Defenses:
//   - A result's taint survives a full disk: its DLP level is written to
//     the workspace's taint journal, into room written ahead, before the
//     workspace is opened (a full disk may fail the open itself); a
//     workspace that does not open journals the session as critical. A
//     taint that can be written nowhere marks the journal (sticky bit,
//     no block needed: every session then reads as critical until a
//     human clears it) and the hook answers continue false with the
//     reason, so Claude Code stops the session (ErrTaintUnrecorded).
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
//     are gated as mcp_call and never allowed without a human, and the
//     human reads that Parallax does not know the tool (not the reason
//     of the mcp_call rule that happened to fire). Input with
//     a duplicated key is refused (the host and the gate must not read
//     different copies). Relative paths resolve against cwd; a Glob
//     pattern is judged at the directory it reaches ("../../x/*").
//   - Undo before change: before a call that may run (ALLOW or ask)
//     writes or deletes, Chronicle snapshots its targets (file tools: the
//     file; Bash: the written and deleted paths of the shell analysis,
//     globs expanded, recursive selections by their root). If that fails,
//     the call is denied. Paths outside the workspace are skipped, and
//     each skip is audited (ChronicleSnapshotFailed, outside_workspace).
//   - Not switchable off by the agent it guards: the gate (guard tables)
//     blocks writes and deletes of Claude Code's settings files (project,
//     local, user, ~/.claude.json, and any file install wrote, recorded
//     in the workspace until uninstall leaves no Parallax entry in it,
//     both audited) and of the MCP client configurations, moving or
//     deleting a directory holding them, and parallax commands run by
//     the agent (hook uninstall, policy add, …, also through go run
//     ./cmd/parallax, $(which parallax), env, nohup, sh -c). install runs the binary
//     it writes in first; it replaces any older Parallax entry, and
//     uninstall removes every one, whatever its binary.
//   - Every decision is audited: the gate's verdicts, the hook's own
//     refusals, escalations and host-internal calls, snapshots.
//   - Unclassifiable results fail closed: the session is raised to
//     critical, the failure audited and reported to Claude.
//   - Every channel to the model is classified, within bounds: at most
//     MaxChannelFiles files, MaxChannelFileBytes each (Claude Code's own
//     bound for a memory file), MaxChannelBytes in all per event. A
//     memory file that exists but cannot be read, or lies past a bound,
//     taints the session critical (audited, rule
//     hook_channel_unclassified); a missing file, a directory or a
//     special file is skipped, as Claude Code skips it. Where the import
//     parse may differ from Claude Code's markdown lexer, it follows
//     more imports, never fewer; rules scoped to paths and
//     subdirectories' CLAUDE.md are counted at the start, as if loaded.
//   - Reasons name rules and paths, never payload secrets; the audit
//     chain redacts what DLP finds.
//
// Limits: the hook sees only what the host shows it. InstructionsLoaded
// is not waited for by Claude Code: a subdirectory's CLAUDE.md loaded
// mid-session may reach the model before its taint is recorded (the
// next tool call usually comes after). Auto memory under a project
// path longer than 200 bytes (hashed by Claude Code), CLAUDE_CONFIG_DIR
// and managed memory given inline in managed settings are not read.
// DLP finds secrets by their form: a password in prose is not found. A tool the host
// runs without a hook call, a binary that is missing (the host treats a
// failing hook command as non-blocking), or a Bash command whose effects
// the analyser cannot see are outside its reach; the kernel sandbox of
// Parallax's own agent mode is the stronger boundary. The shape of
// PreSkillShellCommand was read from the 2.1.332 binary, not captured
// from a run.
package claudecode
