// Package convention checks, over the whole module's source, rules the
// compiler does not: its tests fail on the first file that breaks one.
//
// What it guarantees, for the tables that decide security:
//   - No exported package-level variable but an error sentinel: an
//     exported slice, map or pointer is a table any importer can edit
//     after start, and an edit silently diverges from what was built
//     from it once (an index, a compiled automaton).
//   - No exported function hands out a package-level table itself: it
//     returns a copy, a value, or answers a question about it.
//   - No function changes a package-level variable after start, except
//     inside a sync.Once that builds it once, or for the few process
//     states listed in writers, each with its reason.
//
// And for the layers: the gate's packages import no LLM provider, and the
// sandboxed agent's packages import no executor, engine, os/exec,
// net/http, provider SDK or llm itself (llm/chat only). A forbidden
// import one package still needs is a waiver naming that package and why;
// a waiver that is no longer needed fails too.
package convention

// Finding is a place that breaks a convention.
type Finding struct {
	Pos  string // file:line
	What string
}
