// Package toolgroup is the one static, ordered table of the tools
// Parallax's own agent is offered, grouped as the model loads them. Both
// sides read it: the agent generates the model's tool list and schemas
// from it, the engine its executor map, the off-the-record class and the
// Chronicle snapshot targets. Nothing else keeps a list of tools, so the
// four cannot drift apart.
//
// Each tool is a catalog action type (package action) with the
// description and JSON Schema the model sees, the executor kind that runs
// it, whether it is read-only, and what Chronicle snapshots before it runs.
//
// What the table guarantees (its tests enforce each):
//   - Names are unique across groups, and the core group comes first.
//   - Every schema is a JSON object schema whose properties are exactly
//     the JSON fields of the action's payload: a payload holding only the
//     schema's required properties decodes, and so does one holding all
//     of them.
//   - A read-only tool (the only kind an off-the-record session may run)
//     names no path it writes or deletes, sends nothing anywhere and
//     needs no snapshot.
//   - A tool's snapshot kind covers what its payload says it changes.
//
// Lookups fail closed: a type outside the table is not read-only, has no
// executor kind, and is snapshotted conservatively (SnapshotOf).
//
// The package is provider-neutral: it imports package action and the
// standard library only, never an executor, the engine, os/exec or an LLM
// provider (internal/convention's dependency test checks it), so the
// sandboxed agent can link it.
package toolgroup
