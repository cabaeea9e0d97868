// Package sessions keeps the own agent's chat sessions in the workspace
// database and runs the engine side of the chat's slash commands.
//
//	m, err := sessions.Open(ctx, ws.DB, sessions.Options{Workspace: ws.Root, Audit: ws.Audit})
//	info, err := m.New(ctx, false)
//	err = m.Append(ctx, info.ID, "user", "fix the build")
//	turn, err := m.StartTurn(ctx, info.ID)
//	err = m.NoteSnapshot(ctx, info.ID, turn, snapID) // each Chronicle snapshot the turn took
//	err = m.NoteEffects(ctx, info.ID, turn, effects) // what no snapshot covers (a push, a write outside)
//	res, err := m.Command(ctx, info.ID, "undo", nil)   // the workspace as before that turn
//
// Guarantees:
//   - Off the record (OTR) sessions live only in this process's memory:
//     no title, message, turn or search of theirs reaches the database or
//     any file. The audit chain records that one started and ended, by id
//     only (codes otr_session_started, otr_session_ended), because the
//     gate's own entries for its tool calls carry that id; an OTR
//     session's messages are never titled by the model (first words only),
//     exported, or kept once the chat leaves it.
//   - Session start, resume, end and delete are audited (SessionStarted,
//     SessionEnded with a code); a session that could not be recorded does
//     not start, and a delete is recorded before it happens.
//   - Titles: the first words of the first message at once, then, after
//     Options.TitleAfter exchanges (3), the Titler's answer, once; a title
//     set with /title is never replaced. Every title is cleaned of control
//     and bidi characters and bounded (MaxTitle runes).
//   - Search covers titles and message text with a literal,
//     case-insensitive (ASCII) substring match, bounded in query length and
//     results.
//   - /undo restores the files changed in the latest turn of this session
//     that changed any and was not undone yet: its Chronicle snapshots are
//     rolled back newest first, so every path ends as the turn's earliest
//     snapshot found it, i.e. as it was before the turn. Every snapshot is
//     checked to exist before anything is restored; each rollback is
//     audited like `parallax chronicle rollback` (workspace.AuditedRollback)
//     and can itself be rolled back (the undo snapshots are named). What
//     the turn did that no snapshot covers (NoteEffects: a path outside
//     the workspace changed, a host reached) is named as not restored,
//     to the user and in the notice to the model, bounded; "nothing
//     outside the snapshots" when there was none. A turn with only such
//     effects is undone with nothing restored, and says so.
//   - /config set and /model go through workspace.SetConfig with the
//     session set, so security keys (policy, budgets, sandbox, endpoints)
//     are refused (workspace.ErrSecurityKey) and every change is a
//     ConfigChanged entry.
//   - /export writes Markdown only inside the workspace (symlinks
//     resolved, .parallax refused), never over an existing file.
//   - /audit shows identifiers, codes and bounded, already redacted
//     reasons; never detail messages. /config passes the file through DLP
//     redaction.
package sessions
