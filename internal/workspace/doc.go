// Package workspace opens the state an initialised workspace keeps in
// DIR/.parallax: the SQLite database (sessions, taint, the IFC activity
// table, Chronicle's index, usage) and the audit chain, and adapts them
// to the interfaces the gate uses.
//
// Guarantees:
//   - Nothing is created by Open: a directory without .parallax is
//     ErrNotInitialised, so a typo in --workspace never starts a second,
//     empty history beside the real one.
//   - The audit chain is opened with the DLP redactor: reasons and
//     messages that reach it are masked before they are hashed.
//   - The IFC store keeps ifc's semantics over SQL: taint propagates to
//     every ancestor session, labels keep their maximum level, a
//     sub-agent's link is refused when it would change its parent.
package workspace
