// Package shell executes execute_command: one shell command in the
// workspace, bounded in time and output, with a scrubbed environment,
// inside the per-command kernel sandbox the engine supplies.
//
// Defenses:
//   - Sandbox seam, fail closed: Runner.Wrap receives the *exec.Cmd
//     before it starts and puts it in the sandbox derived from the
//     gate's analysis (package sandbox). An error from Wrap refuses the
//     command (sandbox_refused); it never runs unsandboxed because a
//     sandbox could not be built. Nil Wrap means no sandbox (tests, or an
//     engine configured without one).
//   - The interpreter is bash (--noprofile --norc), because the gate
//     analyses commands as bash; /bin/sh only where bash is missing.
//   - Bounded time: timeout_seconds, or 30 s; more than MaxTimeout
//     (10 min) is refused. On timeout or cancel the whole process group
//     gets SIGTERM, then SIGKILL after a short grace; when the shell
//     exits, whatever it left in its group (background jobs) is killed
//     too, before the shell is reaped (its zombie keeps the group id from
//     being reused). The command runs in its own process group (set after Wrap, so
//     no wrapper can drop it) and dies with the engine (PDEATHSIG).
//   - Bounded output: stdout and stderr share one pipe (interleaved as
//     written) into a buffer that keeps the first and last OutputCap/2
//     bytes (64 KiB in all) and says how many bytes were omitted between.
//     A process that escaped the group and still holds the pipe does not
//     hold the runner: reading stops after the grace.
//   - stdin is /dev/null: a command cannot wait on input.
//   - Scrubbed environment: from the engine's environment, variables are
//     dropped by a static, ordered table of rules (Scrub.Apply reports
//     which rule dropped which name, never the value): Parallax's own
//     (PARALLAX_*); shell and loader start-up hooks (BASH_ENV, ENV,
//     BASH_FUNC_*, SHELLOPTS, BASHOPTS, PROMPT_COMMAND, PS4, LD_PRELOAD,
//     LD_AUDIT) that would make bash run something other than what was
//     analysed; and secret-looking names (…KEY, TOKEN, SECRET, PASSWORD,
//     PASSWD, PASS, CREDENTIAL, AUTH, SESSION, COOKIE, PRIVATE, API,
//     DATABASE_URL and *_DSN) or values (a URL with a password, well-known
//     token formats, PEM private keys). Scrub.Keep passes named variables
//     through the secret rules, never through the first two. PATH, HOME,
//     LANG and the like pass.
//   - Messages name the shell and the command's first word when it is a
//     plain program name; never the rest of the command, which may carry
//     secrets.
//
// Benchmark (spawning `true` through the runner):
//
//	go test -run='^$' -bench=SpawnTrue -count=5 ./internal/tools/shell/
package shell
