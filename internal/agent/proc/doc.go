// Package proc is the agent process: what `parallax agent` runs inside
// its sandbox. It locks itself in first (the injected Sandbox function,
// before it reads anything), then takes the link the engine passed down
// (agentlink.Dial), says Hello, reports its sandbox, waits for Welcome,
// and serves the engine's user messages with one agent.Conversation per
// session.
//
// Guarantees:
//   - Nothing is read before the sandbox is applied; a sandbox that
//     cannot be applied ends the process with an error (the engine runs
//     it with the sandbox reported disabled only when agent.sandbox: off).
//   - The agent holds no key and opens no connection: its model is a
//     chat.Provider whose requests travel over the link to the engine's
//     broker, and its tool calls are proposals the engine decides.
//   - Fail closed: a proposal the engine does not answer with ALLOW (an
//     unknown decision, a dropped link, a cancelled turn) is a BLOCK the
//     model reads as a tool error; the agent survives any tool failure.
//   - Cancel stops a turn or one model request; Shutdown or a closed link
//     ends every turn and the process.
package proc
