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
// Wire (one connection per call, deadlines on both sides): the client's
// hello ({"v","nonce"}); the daemon's proof ({"v","nonce"} and a tag);
// the request, one JSON header line ({"v","exe","home","project_dir",
// "n"}), n bytes of stdin and a tag; the answer, one JSON header line
// ({"v","ok","err","refused","n"}), n bytes of stdout and a tag. err is
// the hook's error (the client exits with status 2 and prints it, as a
// hook process does). Each tag is HMAC-SHA256 under the install's key
// (auth.go says over what).
//
// Defenses:
//   - Trust rests on a secret, not on who the peer is: a process of the
//     same user can bind the socket path (it is in the workspace the
//     agent works in) and can run the parallax binary itself. The
//     install's key (KeyPath: ~/.parallax/hookd.key, 32 random bytes,
//     0600, made by `parallax hook claude-code install`, never in a
//     workspace; the guard seals ~/.parallax from the agent's tool calls)
//     is what the daemon proves it holds, on every connection, before
//     the client sends anything of the call: a tag over the client's
//     fresh nonce, its own, the workspace (device and inode of its
//     .parallax) and the protocol version. The request and the answer
//     carry tags over the same, a message counter and their bytes, so a
//     process that relays the bytes can neither change nor replay an
//     answer, nor a request; tags are compared in constant time. The
//     daemon decides only for a request tagged with the key: only a
//     client that holds it drives the daemon. A peer that fails any of
//     this is never believed: the call is decided in process (and
//     audited there), never allowed. With no key that loads (missing,
//     not a regular file, not KeySize bytes, not this user's, open to
//     others), the client uses and starts no daemon, and a daemon does
//     not start; a daemon exits once its key file is removed or replaced.
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
//     device, inode, size, modification time) in its tagged request. A
//     daemon started from another binary refuses the call and exits; the
//     client decides in process. A daemon of protocol 1 (before the key),
//     which would refuse the hello and stay, is sent the call of another
//     binary that makes it exit (compat.go).
//   - The socket is the caller's alone: it lives in the workspace's
//     .parallax/ (which must be the user's, mode 0700) when the path fits
//     in sockaddr_un, else in a 0700 per-user directory
//     ($XDG_RUNTIME_DIR/parallax or /tmp/parallax-UID, owner and mode
//     checked before use) under a hash of the workspace path. Both ends
//     check the peer's credentials (SO_PEERCRED): the same uid, or the
//     connection is dropped. That is a first filter, not what trust rests
//     on: the peer's pid and /proc/PID/exe are not checked any more, since
//     a script of this user that bound the socket, forked the answering
//     child and exec'd parallax in the listening process passed that
//     check.
//   - One daemon per workspace (flock on SOCKET.lock); it exits after an
//     idle time and on SIGTERM, finishing the calls in flight.
//   - No stale daemon: every few seconds (Server.Watch) it stats the
//     workspace's .parallax, its socket, its executable and its key file,
//     and exits as above once one is missing or another file than the one
//     it started with (device and inode; for the executable and the key
//     also size and modification time): a deleted or
//     re-initialised project, a removed socket, a removed or rebuilt
//     binary. It holds .parallax open so that the inodes it compares
//     cannot be reused. It removes the socket only while the path still
//     names the one it bound, never a successor's.
//   - Bounded: the forwarded input obeys claudecode.MaxInputBytes (a larger
//     one is decided, that is refused, in process), headers are at most
//     64 KiB, answers at most 1 MiB; decisions run one at a time.
//
// Limits: the key keeps out what the gate governs, not what it let run.
// Hook mode has no kernel sandbox: a command the gate ALLOWed (a build
// script, `make dev`) runs with the user's full rights, can read the key
// file and then serve the socket as a daemon would. The own agent's
// sandbox, which hides ~/.parallax, is the stronger boundary. The daemon
// keeps the environment it was started with, apart from HOME and
// CLAUDE_PROJECT_DIR: an API key for the judge changed in the shell after
// the daemon started is seen only by the next daemon, and it keeps the
// key it read from its own HOME.
// Unix sockets with SO_PEERCRED are Linux only; elsewhere the client
// always decides in process.
package hookd
