// Package memo remembers the results of pure functions of a string
// across decisions. A long-running gate judges the same paths and globs
// again and again ("/home/dev/project/**", "~/.ssh/*"); a table keyed by
// the input answers the second time with one map probe instead of a run
// of glob automata.
//
// Guarantees:
//   - only what the caller computed is returned, for exactly the key it
//     was stored under (keys are copied, so a key never aliases memory
//     the caller reuses);
//   - memory is bounded: a table holds at most its limit of entries and
//     empties itself when it would grow past it;
//   - safe for concurrent use.
//
// A table is only correct for functions whose result depends on the key
// and on nothing that changes: static tables compiled into the binary,
// a policy loaded once. Never for anything read from the filesystem.
package memo
