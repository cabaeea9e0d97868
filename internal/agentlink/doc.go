// Package agentlink is the transport between the engine and the agent
// process it spawns: gRPC (proto/parallax/v1) over a private Unix
// socketpair that the engine creates and the agent inherits as a file
// descriptor, plus a per-spawn token.
//
// Engine side:
//
//	p, err := agentlink.NewPair()
//	cmd := exec.Command(agentBinary)
//	cmd.ExtraFiles, cmd.Env, err = p.Attach(cmd.ExtraFiles, cmd.Env) // fd 3 + len(ExtraFiles), the token in Env
//	err = cmd.Start()
//	srv, err := p.Serve(ctx, cmd.Process.Pid, agentlink.Config{Agent: engine, Refused: audit})
//	err = srv.Wait()                    // nil when the agent hung up; a *RefusedError for a foreign peer
//
// Agent side (inside the sandbox):
//
//	c, err := agentlink.Dial(ctx)
//	st, err := c.Agent().Connect(ctx)
//	err = st.Send(c.Hello(version))     // then Welcome, proposals, verdicts, ...
//
// Guarantees and defenses:
//   - The agent never creates or connects a socket. Its only connection is
//     the inherited descriptor, handed to gRPC once through net.FileConn
//     (which dup(2)s it); a second dial — gRPC reconnecting after the link
//     broke — fails with ErrRedial instead of reaching for anything else,
//     and the client never goes idle (idling would drop the only
//     connection). This is what lets seccomp deny socket, socketpair and
//     connect to the agent outright.
//   - Private by construction: both ends are close-on-exec; only the end
//     Attach adds to the command's extra files reaches the one child, and
//     the engine closes its copy of that end in Serve. Transport credentials are
//     insecure on purpose: no other process holds either end.
//   - The peer is the spawned process: on a socketpair SO_PEERCRED names
//     the creator (the engine), so the engine sets SO_PASSCRED before the
//     child exists and reads the kernel-stamped pid and uid of the agent's
//     first write (a fixed preamble). A pid other than the child's or a uid
//     other than the engine's ends the link before gRPC starts; file
//     descriptors passed along with it are closed and refused.
//   - Every call carries the token (32 random bytes from crypto/rand, hex)
//     in metadata; unary and stream interceptors compare it in constant
//     time and re-check the verified peer. The token also travels in Hello.
//     It reaches the child only through its environment, which Dial clears
//     at once, and it never appears in errors, logs or %v of Pair/Client.
//   - One AgentService.Connect stream per link, ever; a second one is
//     refused. Its first message must be a Hello with this build's
//     parallaxv1.ProtocolVersion, the token and the child's pid; until it
//     is, the engine's handler can neither see other messages nor send.
//   - The package links no os/exec (nor any provider or executor): the
//     agent imports it to Dial and starts no process. The engine hands
//     Attach its command's files and environment instead of the command.
//   - Every refusal is returned to the caller as a *RefusedError (through
//     Config.Refused, and from Wait for the handshake) for the audit chain,
//     and the agent gets a gRPC status naming the reason.
//   - Messages are capped at MaxMessageBytes (16 MiB) in both directions
//     on both ends: an oversized send fails at the sender with
//     codes.ResourceExhausted, an oversized receive ends the stream with it.
//   - A dead agent ends the engine's stream with an error (the kernel
//     closes its end), never a hang; Stop or cancelling Serve's context
//     cancels the handlers and waits for them.
package agentlink
