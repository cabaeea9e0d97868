// Package hookrelay carries Claude Code's hook calls out of `parallax
// sandbox`: inside the sandbox the hook cannot open the workspace's
// state (every .parallax is hidden from the agent), so `parallax hook
// claude-code` hands each call, over a Unix socket in the sandbox's
// private /tmp, to the `parallax sandbox` process outside, which decides
// it with the workspace's gate and audit chain and answers.
//
// The socket's path is writable inside the sandbox, so a process there
// could replace it with its own listener. The client believes only a
// server outside its PID namespace: SO_PEERCRED reports the pid of a
// process the namespace cannot see as 0, which no process inside can
// be. A planted listener is refused and the call denied (fail closed):
// it can stop the agent's work, never answer for the gate.
//
// One call per connection: a 4-byte big-endian length and the hook's
// stdin (at most MaxInput bytes); the answer is a length and a JSON
// Answer (the hook's stdout, exit status and message).
package hookrelay
