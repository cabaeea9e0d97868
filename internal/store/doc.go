// Package store is the workspace database: one SQLite file per workspace
// (DIR/.parallax/parallax.db) through modernc.org/sqlite, pure Go, no cgo.
// It holds sessions and their taint, the IFC activity table, Chronicle's
// snapshot index, usage counters, the LLM usage (tokens, cost) of each
// session and day, and the own agent's conversations (titles, messages,
// turns and the snapshots each turn took, for /undo).
//
//	db, err := store.Open(ctx, filepath.Join(ws, ".parallax", "parallax.db"))
//	err = db.RaiseTaint(ctx, "sub-1", 3, "path:/w/.env") // sub-1 and its ancestors
//	lvl, err := db.MaxTaint(ctx, "root")
//
// Guarantees and defenses:
//   - Durable before it returns: journal_mode=WAL with synchronous=FULL, so
//     a committed write (a snapshot record taken before an action runs, a
//     taint raise) survives a crash or power loss; WAL lets readers go on
//     while one process writes. Open fails if WAL cannot be enabled.
//   - Writes are serialised: one write connection per process behind a
//     mutex, every transaction BEGIN IMMEDIATE (the write lock is taken up
//     front, so two processes never deadlock upgrading a read lock), and a
//     busy timeout of 30 s by default, so the many short-lived hook
//     processes that share a workspace wait for each other instead of
//     failing with SQLITE_BUSY. Reads use a separate query-only pool.
//   - Versioned schema: an ordered, static table of numbered migrations,
//     each applied in its own transaction and recorded in PRAGMA
//     user_version and schema_migrations. A failing migration rolls back
//     and is named in the error; a database from a newer binary is refused
//     (ErrTooNew) rather than written with an older schema.
//   - Private: parent directories are created 0700 and the file 0600 before
//     SQLite opens it (its -wal and -shm files inherit the mode); an
//     existing file with group or other bits is narrowed to 0600; a symlink
//     or other non-regular file at the path is refused.
//   - Integrity in the schema: foreign keys on, CHECK constraints on levels
//     (0..4), JSON columns and day keys; typed methods validate the same
//     before writing and name the offending value (never a secret: only
//     levels, paths, sources and keys are stored).
//   - Taint only rises: RaiseTaint keeps the maximum per (session, origin,
//     source) and copies the record to every ancestor session, so a
//     sub-agent's taint reaches its parent. A session cannot be re-parented
//     (ErrSessionParent); the parent walk is bounded and refuses cycles.
//   - The IFC activity table keeps the highest level per path; a sweep
//     removes labels of vanished paths but keeps a row updated meanwhile.
//   - Chronicle's index: AddSnapshot assigns the id and the previous hash
//     inside the write transaction, so the hash chain stays linear under
//     concurrent writers; pruning deletes a prefix of the chain and moves
//     the anchor so the rest still verifies.
//
// Timestamps come from an injected clock (WithClock) and are stored as Unix
// nanoseconds. Levels are plain integers; the ifc package names them.
package store
