// Package hookd keeps the Claude Code hook warm: a per-workspace decision
// daemon (`parallax hook claude-code daemon`) and the client that every
// hook process runs first. Claude Code starts a new hook process for
// every tool call and waits for it; the client forwards the call's stdin
// bytes and environment (HOME, CLAUDE_PROJECT_DIR) over a Unix socket,
// the daemon answers it with the same claudecode.Run code a hook process
// runs, and the client prints the answer. With no daemon, or any doubt
// about the one it reaches, the client decides in process exactly as a
// hook without a daemon does (and may start a daemon for the next call).
//
// Wire (one connection per call, deadlines on both sides): the request is
// one JSON header line ({"v","exe","home","project_dir","n"}) and n bytes
// of stdin; the answer is one JSON header line ({"v","ok","err",
// "refused","n"}) and n bytes of stdout. err is the hook's error (the
// client exits with status 2 and prints it, as a hook process does).
//
// Defenses:
//   - Never fails open: a daemon that is missing, refuses, dies mid-call,
//     answers anything but a complete, well-formed answer, or is slower
//     than the client's budget for it leaves the decision to the client,
//     in process; when too little time is left for that, the call is
//     refused (exit status 2). A daemon's answer is printed only once it
//     is complete: nothing half-written reaches the host.
//   - Same answers: the daemon runs claudecode.Run on the forwarded bytes
//     with the forwarded HOME and CLAUDE_PROJECT_DIR; the workspace is
//     found from the input's cwd as in process. Every call builds its gate
//     afresh, so policy.yaml and ~/.parallax/policy.yaml are read as a
//     fresh process reads them; the session taint other processes wrote is
//     read from the database by every decision. The database and the audit
//     chain stay open between calls (workspace.Pool) only while the
//     identities of .parallax, the database, the audit chain and
//     config.yaml (its size and times too) are unchanged; a workspace with
//     a judge is opened afresh every call. Every decision is in the audit
//     chain (appended and fsynced) before it is answered. What else stays
//     warm is package state no file decides (tables, compiled presets) and
//     the guard's filesystem reads, through its inotify-validated cache.
//   - Same binary: the client sends its executable's identity (path,
//     device, inode, size, modification time). A daemon started from
//     another binary refuses the call and exits; the client decides in
//     process.
//   - The socket is the caller's alone: it lives in the workspace's
//     .parallax/ (which must be the user's, mode 0700) when the path fits
//     in sockaddr_un, else in a 0700 per-user directory
//     ($XDG_RUNTIME_DIR/parallax or /tmp/parallax-UID, owner and mode
//     checked before use) under a hash of the workspace path. Both ends
//     check the peer's credentials (SO_PEERCRED): the same uid, or the
//     connection is dropped.
//   - One daemon per workspace (flock on SOCKET.lock); it exits after an
//     idle time and on SIGTERM, finishing the calls in flight.
//   - No stale daemon: every few seconds (Server.Watch) it stats the
//     workspace's .parallax, its socket and its executable, and exits as
//     above once one is missing or another file than the one it started
//     with (device and inode; for the executable also size and
//     modification time, as the client's identity): a deleted or
//     re-initialised project, a removed socket, a removed or rebuilt
//     binary. It holds .parallax open so that the inodes it compares
//     cannot be reused. It removes the socket only while the path still
//     names the one it bound, never a successor's.
//   - Bounded: the forwarded input obeys claudecode.MaxInputBytes (a larger
//     one is decided, that is refused, in process), headers are at most
//     64 KiB, answers at most 1 MiB; decisions run one at a time.
//
// Limits: the daemon keeps the environment it was started with, apart
// from HOME and CLAUDE_PROJECT_DIR: an API key for the judge changed in
// the shell after the daemon started is seen only by the next daemon.
// Unix sockets with SO_PEERCRED are Linux only; elsewhere the client
// always decides in process.
package hookd
