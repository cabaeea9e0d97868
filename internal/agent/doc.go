// Package agent is the conversation loop of Parallax's own agent: the
// part that talks to the model, keeps the context and proposes tool
// calls. It runs inside the sandboxed agent process and can do nothing
// itself: the model is reached through a chat.Provider the engine
// answers (the agent holds no key), and every tool call is a proposal
// the engine decides, executes and answers (Proposer).
//
// What the loop guarantees:
//   - A turn ends: at most Limits.MaxToolRounds model calls that ask for
//     tools, then the loop stops asking and says so.
//   - A blocked or failed call never ends the turn: the gate's reason (or
//     the error) goes back to the model as a tool error so it can adapt.
//   - A panic in the proposer or a sink is caught and becomes a tool
//     error or a turn error; the conversation survives.
//   - The model sees only the tools of the groups it loaded; a call to a
//     tool outside them is answered with an error, not proposed.
//   - The context stays under Limits.ContextTokens: past
//     Limits.CompactAt of it, older exchanges are summarised by the model
//     and replaced by the summary (the last exchanges are kept verbatim).
//
// Bootstrap (the workspace's SOUL.md, IDENTITY.md, USER.md, AGENTS.md
// and the skills index) is read by the engine with LoadBootstrap and
// handed to the agent: the agent process cannot read the workspace.
package agent
