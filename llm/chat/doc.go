// Package chat is the provider-neutral vocabulary of a model call:
// messages and their parts, tool definitions and calls, requests,
// answers, streamed events, token usage, and the Provider and Stream
// interfaces every model implements. It holds no provider, no client and
// no key: package llm implements Provider over the vendors' APIs (and
// re-exports these names as aliases), and the sandboxed agent, which only
// proposes, builds its requests with this package alone.
//
// What it guarantees:
//   - It imports six standard packages (context, encoding/json, errors,
//     fmt, io, strings): no provider SDK, no net/http, no os/exec. The
//     convention tests fail when the agent's packages reach further.
//   - One definition of a well-formed request (Request.Validate): roles,
//     parts in the role that may carry them, tool results answering an
//     earlier call, tool inputs and schemas that are JSON objects. Every
//     provider checks it before sending; nothing that fails it is sent.
//   - One definition of a tool call's input (ToolInput): what a model
//     produced becomes a JSON object or an error, never a partial value.
//   - Collect reads a Stream to its final event or fails: a stream that
//     ends without EventDone is an error, never a partial answer.
package chat
