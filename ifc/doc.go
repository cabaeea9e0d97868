// Package ifc is information-flow control for Shield: it labels data with
// sensitivity levels, follows the labels through sessions and files, and
// decides, per sink, which levels may reach it.
//
// # Model
//
// Five levels, ordered: public < internal < confidential < restricted <
// critical. Sources are classified by path (a static, ordered table of
// rules in rules.go: credential files and directories, .env files, key
// material, finance/health/legal documents, public docs) and by content
// (a ContentClassifier, the dlp package behind an adapter). Sinks are
// categories (sink.go): http_request, send_email, send_message, browser,
// git_remote, mcp, network (shell code with network effects),
// opaque_command (shell code whose effects are not fully known),
// write_outside, write_workspace, execute, memory_write, agent (create_agent,
// agent_message) and schedule. A YAML policy (presets default, permissive,
// strict) maps level × sink to allow, escalate or block.
//
// A Tracker judges an action before it runs (Evaluate) and learns from it
// after it ran (Observe):
//
//   - Flow: the level an action carries is the highest of the paths it
//     reads (payload paths, file:// URLs, the shell analysis' read paths),
//     the sensitive trees below a directory it reads (tar of the home
//     reads ~/.ssh), the activity table's labels of those files, the
//     output of environment-dumping commands piped to the network, and
//     its outbound text when a classifier is set.
//   - Session taint: the highest level a session has seen. At the
//     policy's taint sinks an action is judged at max(carried, taint), so
//     reading .env and then sending a rephrased mail is caught.
//   - Content tags: Observe classifies a tool's result and takes the
//     labels its executor attached; both raise the taint. The result
//     field of `shield evaluate` feeds the same path.
//   - Activity table: when an action writes a file with data above
//     internal (by its reads, its written content, and — at taint sinks —
//     the session taint), the file gets that label, kept across sessions
//     (Store), so reading it later carries the label: data is not
//     laundered through intermediate files, chains of copies or archives.
//   - Memory sink: memory_write is blocked once the taint reaches the
//     policy's memory_block levels (default: restricted, critical).
//   - Sub-agents: Spawn links a child session to its parent; every raise
//     of the child's taint reaches its ancestors, and the child starts
//     with the parent's taint.
//
// # Defenses
//
//   - Fail closed: a store error, a missing action or a panic inside
//     Evaluate is a BLOCK with rule ifc_error (and the error is returned);
//     out-of-range levels count as critical and unknown sinks block; a
//     policy default applies to any level × sink no rule covers (block in
//     strict, escalate in default).
//   - Globs are over-approximated: a shell glob is judged at the highest
//     level any path it may match could have (segment-wise intersection
//     of the glob with every rule). For flows "**" reaches every tree and
//     a bare "*" may be any secret name.
//   - Labels only rise: the activity table keeps the maximum, a taint
//     never drops, and a label is removed only when its file is gone
//     (Sweep, for the CLI's audited `parallax ifc sweep`; an entry whose
//     existence cannot be checked is kept).
//   - Reasons name the sink, the level and the source (a path with its
//     rule id, content labels, the session taint's source), never data:
//     classifiers return label names, not matches.
//   - Strict policy load: unknown keys, wrong YAML types, duplicate keys
//     and names, unknown levels and sinks, empty lists, aliases and extra
//     documents fail with file, line and rule.
//   - No hidden inputs: HOME and the workspace are configuration, the
//     clock is injected; nothing reads the environment on the hot path.
//
// # Known limits
//
//   - Flows inside one shell command are not separated: every file it
//     writes gets the highest level it reads.
//   - Workspace writes carry the session taint only when write_workspace
//     is a taint sink (strict). In default, a secret the agent rephrases
//     into a workspace file in one session is caught when that session
//     tries to send it, not when another session reads the file — unless
//     the classifier recognises the content.
//   - Programs the agent runs (scripts, build tools) are judged by the
//     analyser's effects: their own network use is not seen (an unknown
//     program is opaque_command).
//   - Environment variables named in a command (curl -H "$TOKEN") are
//     credentials in use, judged by the heuristics against their issuer.
//   - Path words (tax, contract, medical …) apply to documents: files with
//     a document extension, and extension-less paths outside the workspace.
package ifc
