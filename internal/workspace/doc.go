// Package workspace creates, checks and opens the state a workspace keeps
// in DIR/.parallax: config.yaml, the user policy, the canary and API
// tokens, the SQLite database (sessions, taint, the IFC activity table,
// Chronicle's index, usage) and the audit chain, and adapts them to the
// interfaces the gate uses.
//
//	res, err := workspace.Init(ctx, dir, workspace.InitOptions{Policy: "strict"})
//	rep := workspace.Doctor(ctx, dir, workspace.DoctorOptions{Home: home})
//	w, err := workspace.Open(ctx, dir); g, err := shield.New(w.GateConfig(home))
//
// Guarantees and defenses:
//   - Nothing is created by Open: a directory without .parallax is
//     ErrNotInitialised, so a typo in --workspace never starts a second,
//     empty history beside the real one.
//   - Init is atomic and never overwrites: the new state is built in
//     DIR/.parallax-init-*/.parallax (a path the guard seals, as it seals
//     every .parallax component) and renamed into place in one step
//     (renameat2 RENAME_NOREPLACE on Linux, so of two concurrent inits
//     exactly one wins). An error at any step removes the staging
//     directory; an existing .parallax is ErrExists. With Force the old
//     .parallax is moved, whole, into the new one's backups/ (still sealed)
//     and moved back if the install fails; the new chain's first entry
//     records where it went and the anchor its chain ended with.
//   - Private by construction: .parallax and its directories 0700, every
//     file 0600 whatever the umask; tokens are 32 bytes from crypto/rand
//     (injectable), read back only through ReadToken, which refuses
//     symlinks, group or other bits and malformed content, and never puts
//     a token value in an error.
//   - Doctor changes nothing: the database is probed read-only (schema
//     version, SQLite quick check) and opened by the store only when its
//     schema is current; policies are loaded exactly as the gate loads
//     them. Every problem is a FAIL or WARN check with a fix, never a
//     silent pass; a check that cannot run is SKIP.
//   - The audit chain is opened with the DLP redactor: reasons and
//     messages that reach it are masked before they are hashed.
//   - The IFC store keeps ifc's semantics over SQL: taint propagates to
//     every ancestor session, labels keep their maximum level, a
//     sub-agent's link is refused when it would change its parent.
package workspace
