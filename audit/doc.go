// Package audit is the tamper-evident record of what the gate decided and
// what ran: an append-only JSON Lines file (DIR/.parallax/audit.jsonl), one
// entry per event, each carrying the SHA-256 of its canonical content and
// the hash of the entry before it.
//
//	log, err := audit.Open(audit.DefaultPath(ws), audit.Options{Redactor: dlp})
//	e, err := log.Append(ctx, audit.FromVerdict(audit.ActionEvaluated, sess, "read_file", v))
//	rep, err := audit.Verify(path, audit.VerifyOptions{})   // *ChainError names the first bad line
//
// # Defenses
//
//   - Durable before the action runs: Append returns only after the entry
//     and every entry before it are written and fsynced. Concurrent Appends
//     share one write and one fsync (group commit), so sessions do not
//     serialise on the disk.
//   - Many processes, one chain: every batch is written under an exclusive
//     flock on the log; the writer re-reads and checks the last entry (seq,
//     hash) and the head under the lock before every batch. Readers
//     take the size and the head under a shared lock and read that
//     snapshot. Where flock is not available the package refuses to open.
//   - Crashes: a batch is one write(2). A crash can leave a torn last line
//     (bytes after the last newline) but cannot damage what came before.
//     Open and every append check the tail: a torn tail stops appending
//     with a *ChainError (code torn_tail, byte offset, line) instead of
//     being written over or silently "restarted". Recover moves the torn
//     bytes to audit.jsonl.torn-<n>, cuts the log back and records an
//     IntegrityViolation entry with the offset, length and SHA-256 of what
//     it moved. Whole entries of a batch interrupted by a crash may survive;
//     their Append never returned, so no action ran on their strength.
//   - After a failed write or fsync (a full disk) the Log refuses appends
//     until it can write again, and tries before every batch (and on
//     Check): it reopens the file and, under the lock, writes the bytes of
//     its failed batch again in place and syncs them (after a failed fsync
//     the kernel may have dropped the dirty pages), cuts off an incomplete
//     line of its own, checks the tail and the head, and commits a
//     ShieldError entry (code audit_recovered, the count of refused
//     appends) ahead of the batch. Entries written but unconfirmed stay in
//     the chain; their Append returned an error, so no action ran on their
//     strength. A torn tail of another writer still stops the log.
//   - Verify walks the whole chain and names the first bad line, its seq,
//     its byte offset and a reason code: bad_json, bad_field, not_canonical,
//     hash_mismatch, prev_mismatch, seq_gap, line_too_long, torn_tail,
//     head_mismatch, head_missing, head_unreadable, anchor_mismatch. A flipped
//     byte breaks the entry's hash (or its JSON); a deleted, duplicated or
//     reordered entry breaks seq; an entry edited and re-hashed breaks the
//     next entry's prev; the last entry edited and re-hashed, or removed,
//     disagrees with the head file.
//   - Strict reading: a line must be the canonical encoding byte for byte
//     (unknown or duplicated keys, other spellings or escapes are
//     not_canonical), lines are limited to MaxLine bytes, event types,
//     decisions, tiers and identifiers are checked. A scanner that accepts
//     only the canonical spelling reads valid lines; whatever it refuses goes
//     through encoding/json to name the problem (a fuzz test holds the two to
//     the same verdicts).
//   - No secrets: reason, detail message and detail path go through the
//     Redactor (the dlp package) before they are hashed; a Redactor that
//     panics fails the append. Free text is bounded (reason 2 KiB, message
//     and path 4 KiB); identifiers (action, stage, rule, code, ref, labels)
//     must match [A-Za-z0-9._:/@+=-]; sessions may not hold control
//     characters. Errors and Verify messages quote hashes and numbers,
//     never entry text.
//   - Fail closed: an event the package cannot record (unknown type, bad
//     field, closed log, I/O error) is an error, and the caller must not
//     run the action.
//
// # Threat model
//
// The chain proves that the history has not changed since it was written,
// against anyone who cannot rewrite both the log and its head: a crash, a
// tool or person editing the file by hand, an attacker who can truncate,
// drop or alter lines but does not recompute the chain. The head file
// (audit.head, next to the log) records the seq and hash of the last
// committed entry after every batch; it catches the removal of trailing
// entries and the edit-and-re-hash of the last one. It is rewritten in
// place after the log's fsync, without an fsync of its own, so after a
// crash it may lag the log (Report.HeadLag); it never leads it.
//
// An attacker with write access to both files can rewrite any suffix of
// the chain, re-hash it and move the head; nothing stored beside the log
// can detect that. The defense is elsewhere: the agent cannot reach
// .parallax/ at all (the guard seals it), and Verify prints an anchor
// ("SEQ:sha256:…") that can be kept off the machine and passed back
// (VerifyOptions.Anchors, parallax audit --verify --anchor); a rewrite of
// any entry up to an anchor is then reported as anchor_mismatch. Deleting
// both files leaves nothing to verify; an external anchor reports it.
//
// # Canonical encoding
//
// An entry is hashed over its canonical encoding, which an external
// verifier can rebuild without this package. It is one JSON object with
// no white space, members in this order, optional members omitted when
// empty (strings) or zero (integers):
//
//	v (1), seq, time, type, session?, action?, action_hash?, decision?,
//	stage?, tier?, rule?, reason?, detail?, prev
//
// detail, present when any of its members is, is an object with members
// code?, message?, path?, target?, ref?, labels? (array of strings, omitted when
// empty), offset?, length?, count?, exit_code?, duration_ms?, bytes_up?,
// bytes_down?. Integers are
// plain decimal (a leading "-" for negative values). time is RFC 3339 in
// UTC with the fractional seconds of Go's time.RFC3339Nano (trailing zeros
// dropped, none when zero). Strings are valid UTF-8 between double
// quotes; '"' and '\' are escaped with a backslash, bytes 0x00-0x1F as
// \u00xx with lower-case hex digits, every other byte is written as is.
// prev is the hash of the previous entry, or Genesis ("sha256:" and 64
// zeros) for the first; seq starts at 1 and grows by one.
//
// hash = "sha256:" + lower-case hex of SHA-256(canonical bytes). The line
// is the canonical bytes with the closing '}' replaced by
// `,"hash":"<hash>"}` and followed by '\n'. So: take a line, cut the
// trailing `,"hash":"sha256:<64 hex>"}`, append '}', hash that. Our
// verifier also re-encodes the parsed entry and requires the same bytes.
//
// The head file is one line of fixed length, rewritten in place:
// "parallax-audit-head v1 seq=<20 digits> hash=<hash> crc=<8 hex>\n",
// crc being the CRC-32 (IEEE) of what precedes " crc=".
package audit
