// Package chronicle keeps copy-on-write snapshots of what an action is
// about to change, so any write, delete, move or copy (or a shell command
// with write effects) can be diffed and rolled back.
//
//	c, err := chronicle.Open(ctx, workspace, chronicle.Options{})
//	snap, err := c.Snapshot(ctx, []string{"/w/src/main.go"}, "write_file", session) // before executing
//	changes, err := c.Diff(ctx, snap.ID)
//	res, err := c.Rollback(ctx, snap.ID) // res.Undo.ID undoes the rollback
//	_, err = c.Prune(ctx, 500, 30*24*time.Hour)
//
// Contents live in WORKSPACE/.parallax/chronicle/objects, named by their
// SHA-256; the index (snapshots, their entries, a stat cache and the chain
// anchor) lives in the workspace database (internal/store).
//
// Guarantees and defenses:
//   - Fail closed: Snapshot records nothing and returns an error for a
//     relative path, a path that resolves outside the workspace or into
//     .parallax (ErrOutside), a FIFO, socket or device (ErrUnsupported),
//     more than Options.MaxFiles entries or MaxBytes of content
//     (ErrTooLarge, checked before any content is read), or any I/O
//     error. The caller must then not run the action.
//   - What is recorded: files (content, mode with setuid/setgid/sticky,
//     mtime), directories (recursively, with mode and mtime), symlinks as
//     links (never followed, wherever they point) and paths that do not
//     exist yet ("absent"; for a new file in new directories, the topmost
//     missing directory), so rollback removes what the action created.
//     Symlinks in parent directories are resolved at snapshot time.
//   - Confined reads: content is read through an os.Root of the workspace
//     with O_NOFOLLOW|O_NONBLOCK; the opened file must be the one scanned
//     (same device and inode), and a file that changes while being read is
//     read again (three attempts, then an error).
//   - Stored once: objects are content-addressed and read-only (0400, in
//     0700 directories); equal contents share one object across paths and
//     snapshots. A stat cache keyed by device, inode, size, mode, mtime and
//     ctime lets unchanged files skip reading (like git's index); ctime
//     cannot be set back by an unprivileged process, and entries whose
//     times are within one second of the filesystem's clock (read from a
//     marker file, not the process clock) are not cached. A cache hit also
//     needs the object to exist.
//   - Reflinks: on Linux each new object is first tried as an FICLONE
//     clone (btrfs, XFS with reflink, bcachefs …), then copied; Stats
//     reports Cloned/Copied, so callers see which ran.
//   - Durable before the action: new objects are flushed (syncfs on Linux,
//     fsync per file elsewhere) before the index commit, which is itself
//     synchronous (see internal/store).
//   - Hash chain: each snapshot record carries the SHA-256 of its manifest
//     (a canonical, length-prefixed encoding of its entries) and of the
//     previous record; Prune removes only the oldest snapshots and moves
//     the anchor. Get, Diff and Rollback check the record, its manifest and
//     its link first; Verify checks the whole chain and that every object
//     exists (deep: re-hashes them) and locates the first problem
//     (*VerifyError, ErrTampered). Entries naming .parallax, ".." or
//     unknown types are refused even if their hashes were forged.
//   - Rollback is checked before it touches anything: objects are copied
//     to staging files and re-hashed first, so a corrupt or missing object
//     aborts with an error naming the path and nothing restored. The
//     current state is snapshotted first (RollbackResult.Undo), so a
//     rollback can itself be rolled back. Each path is then replaced
//     atomically (temp + rename) through the os.Root, only where it
//     differs; a parent that is no longer a directory (e.g. swapped for a
//     symlink) is refused. Directory modes are restored last, so read-only
//     directories come back read-only.
//   - Concurrency: an flock on .parallax/chronicle/lock serialises
//     Snapshot, Rollback and Prune (across goroutines and processes);
//     Diff and Verify share it, so garbage collection never removes an
//     object a snapshot in progress is writing or a reader needs.
//
// Not preserved: owners, extended attributes, ACLs and hard-link
// identity (linked files come back as separate copies). The chain proves
// consistency, not authorship: someone able to rewrite the whole database
// and object store can forge it, and dropping the newest snapshots is only
// visible against a head recorded elsewhere (store.ChainHead, for the
// audit log). Snapshot bounds default to 100,000 entries and 2 GiB.
package chronicle
