// Package files executes the file actions of the catalog: read_file,
// write_file, edit_file, delete_file, move_file, copy_file,
// create_directory, list_directory and search_files.
//
// Prepare runs at decision time and resolves every path of the action;
// Execute runs the action only if every path still resolves to the same
// objects. Defenses:
//
//   - Decision-time pinning (TOCTOU). Prepare resolves each path from the
//     root, following symlinks through the deepest existing ancestor (a
//     symlink in the last place is followed for reads, writes and
//     listings, and is the object itself for delete and the source of a
//     move), and records the (device, inode, type) of "/" and of every
//     existing component. Execute resolves again and refuses with
//     path_changed when the result differs: a symlink swapped in, a file
//     replaced by a directory or by another file, an ancestor replaced by
//     a symlink, a path that appeared or vanished.
//   - No window after the check. The operation itself does not go through
//     the path again: the parent is opened by walking from "/" one
//     component at a time with openat(O_PATH|O_NOFOLLOW|O_DIRECTORY),
//     each descriptor checked against the recorded identity, and the last
//     component is opened, renamed, created or removed relative to that
//     descriptor with O_NOFOLLOW (or AT_SYMLINK_NOFOLLOW) and checked
//     again after opening. A symlink planted after the check makes the
//     open fail; it is never followed. We chose this over os.Root because
//     os.Root confines to a directory but follows symlinks inside it and
//     cannot check identities along the way; the confinement here is
//     stricter: exactly the objects the gate saw.
//   - Recursive operations (delete, list, search, copy of a directory)
//     descend by descriptor with O_NOFOLLOW: symlinks are listed,
//     unlinked or copied as links, never followed; a recursive delete
//     refuses to cross into another file system, and list, search and
//     copy do not enter one. A directory is never copied into itself.
//   - Walks ask the guard. list_directory (flat or recursive),
//     search_files over a directory and copy_file of a directory judge
//     every entry they meet, by its absolute path, as a read
//     (Config.Judge; the engine passes the gate's own guard through
//     GuardJudge) before it is shown, matched, read, copied or entered:
//     a sealed or restricted entry (.parallax and its tokens and audit
//     chain, .env, key files, a link into ~/.ssh, ~/.aws/config that a
//     copy would make an ordinary file) is skipped, and the answer ends
//     with one line counting the withheld entries by class ("[6 entries
//     withheld (restricted or sealed)]"), never their names or
//     contents. A walk without a Judge is refused (no_guard): the gate
//     judges only the root of a walk, so an unjudged walk would read
//     what the gate seals.
//   - Atomic writes: write_file, edit_file and copy_file write a
//     temporary file in the same directory (O_EXCL, O_NOFOLLOW), fsync
//     it, check the target is still the planned object, rename it into
//     place and fsync the directory; on any error the temporary file is
//     removed. An existing file keeps its permission bits (setuid, setgid
//     and sticky are dropped); a new file gets 0644 less the umask, or
//     Config.NewFileMode exactly. Append mode writes in place and syncs,
//     and refuses a file with more than one hard link (an append would
//     reach every name of it; a replacing write reaches only this one).
//   - Only regular files are read, written or edited: directories,
//     FIFOs (opened O_NONBLOCK, never waited on), sockets and devices are
//     refused. A directory is never replaced by a file (write, move,
//     copy), nor a file by a directory.
//   - edit_file replaces exactly one occurrence of the old text; 0 or
//     more than one is refused with the count (no_match, ambiguous_edit).
//   - Bounds: read_file returns at most Config.MaxReadBytes (1 MiB) and
//     cuts long lines; offset is the number of the first line returned
//     (0 and 1 both mean the first) and limit the number of lines. Binary files
//     (a NUL in the first 8 KiB returned) are summarised, not shown.
//     list_directory stops at MaxListEntries; search_files bounds entries
//     visited, file size, matches, line length and output bytes.
//   - A plan missing, or taken for another action, refuses (bad_plan).
//   - Errors carry a stable code (tools.Code*), the action and the path
//     that failed; never file contents.
//
// search_files takes one pattern and uses it both ways: as an RE2 regular
// expression over the contents of regular files, and as a doublestar glob
// over names (the base name, or the relative path when the pattern has a
// "/"). A pattern that is neither is refused.
//
// The engine should judge what the plan resolved (PathPlan.Resolved), not
// only the path as spelled: that is the object the executor will touch.
//
// Linux only: the descriptor walk needs O_PATH and renameat2.
//
// Benchmarks (a small file, Prepare and Execute together):
//
//	go test -run='^$' -bench=. -count=5 ./internal/tools/files/
package files
