package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/parallax/parallax/audit"
)

// exitAuditBad is the exit status when the audit chain does not verify,
// cannot be read to the end, or cannot be repaired.
const exitAuditBad = 1

// auditFlags are the options of `parallax audit`.
type auditFlags struct {
	workspace, session, typ string
	last                    int
	asJSON, verify, repair  bool
	anchors                 []string
}

func newAuditCmd() *cobra.Command {
	var fl auditFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show, verify and repair the workspace's audit chain",
		Long: `Every event of the gate (proposals, verdicts, approvals, executions,
failures, integrity events) is appended to DIR/.parallax/audit.jsonl, one
JSON object per line. Each entry carries the SHA-256 of its canonical
content and the hash of the entry before it; DIR/.parallax/audit.head
records the last committed seq and hash.

Without --verify or --repair, prints the most recent entries (-n, 20 by
default; 0 for all), optionally only one session's (--session) or one event
type (--type), as a table or as the stored JSON lines (--json). Each line's
own hash is checked; a damaged line stops the listing with its location.

--verify walks the whole chain and names the first bad line, its seq, its
byte offset and a reason code: bad_json, bad_field, not_canonical,
hash_mismatch, prev_mismatch, seq_gap, line_too_long, torn_tail,
head_mismatch, head_missing, head_unreadable or anchor_mismatch. On success
it prints an anchor (SEQ:sha256:...): keep it somewhere the agent and any
intruder cannot write, and pass it back with --anchor; a rewrite of the
chain up to that entry is then caught even if the head was rewritten too.

--repair handles damage at the end of the chain, losing no entry that
verifies: a torn last line (its bytes are moved to audit.jsonl.torn-<n>)
and a head file that disagrees with the log, is missing or unreadable
(head_mismatch, head_missing, head_unreadable: it is rewritten to the last
entry that verifies). Each repair is an IntegrityViolation entry recording
what was found (offset, length and hash of the torn bytes; the seq and hash
the head recorded). A bad entry, a broken link or a gap inside the chain is
refused: it needs a human. The whole chain is verified afterwards. A
corrupt or truncated tail is never silently restarted.

Exit status 1 when the chain does not verify, a listing hits a damaged
line, or a repair is refused.`,
		Example: `  parallax audit
  parallax audit -n 50 --session s1 --type ActionBlocked
  parallax audit --verify
  parallax audit --verify --anchor 1042:sha256:3b5d...
  parallax audit --repair`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.workspace, "workspace", "", "workspace directory (default: the workspace at or above the current directory)")
	f.IntVarP(&fl.last, "last", "n", 20, "show the last N matching entries (0: all)")
	f.StringVar(&fl.session, "session", "", "only entries of this session")
	f.StringVar(&fl.typ, "type", "", "only entries of this event type (e.g. ActionBlocked)")
	f.BoolVar(&fl.asJSON, "json", false, "print the stored JSON lines instead of a table")
	f.BoolVar(&fl.verify, "verify", false, "verify the whole chain and the head")
	f.StringArrayVar(&fl.anchors, "anchor", nil, "with --verify: SEQ:sha256:HEX that must still hold (repeatable)")
	f.BoolVar(&fl.repair, "repair", false, "repair the end of the chain (torn last line, head file) and record it")
	cmd.MarkFlagsMutuallyExclusive("verify", "repair")
	return cmd
}

func runAudit(cmd *cobra.Command, fl *auditFlags) error {
	ws, err := resolveWorkspace(cmd.ErrOrStderr(), fl.workspace)
	if err != nil {
		return err
	}
	path := audit.DefaultPath(ws)
	switch {
	case len(fl.anchors) > 0 && !fl.verify:
		return errors.New("audit: --anchor needs --verify")
	case fl.verify:
		return auditVerify(cmd, path, fl.anchors)
	case fl.repair:
		return auditRepair(cmd, path)
	}
	return auditList(cmd, path, fl)
}

func auditVerify(cmd *cobra.Command, path string, anchorArgs []string) error {
	var opts audit.VerifyOptions
	for _, s := range anchorArgs {
		a, err := audit.ParseAnchor(s)
		if err != nil {
			return fmt.Errorf("audit --anchor: %w", err)
		}
		opts.Anchors = append(opts.Anchors, a)
	}
	start := time.Now()
	rep, err := audit.Verify(path, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: exitAuditBad, err: fmt.Errorf("audit --verify: no audit log at %s", path)}
	}
	if err != nil {
		return &exitError{code: exitAuditBad, err: fmt.Errorf("audit --verify: FAILED: %w%s", err, repairHint(err))}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "ok: %s: %d entries, %d bytes, verified in %s\n", path, rep.Entries, rep.Bytes,
		time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(&b, "head:   %s", rep.Head)
	if rep.HeadLag > 0 {
		fmt.Fprintf(&b, " (%d entries after it: the head had not moved yet at a crash)", rep.HeadLag)
	}
	fmt.Fprintf(&b, "\nanchor: %s\n", rep.Last)
	if rep.Entries > 0 {
		b.WriteString("Keep the anchor off this machine; --verify --anchor checks the chain still leads to it.\n")
	}
	return flush(cmd, &b)
}

// repairHint points at --repair for the damage it can fix.
func repairHint(err error) string {
	ce, ok := audit.AsChainError(err)
	if !ok {
		return ""
	}
	switch ce.Code {
	case audit.CodeTornTail:
		return " (parallax audit --repair moves the torn bytes aside and records it)"
	case audit.CodeHeadMismatch, audit.CodeHeadMissing, audit.CodeHeadUnreadable:
		return " (if every entry verifies, parallax audit --repair rewrites the head to the last one and records what it said)"
	}
	return ""
}

func auditRepair(cmd *cobra.Command, path string) error {
	rec, err := audit.Recover(path, audit.Options{})
	if err != nil {
		return &exitError{code: exitAuditBad, err: fmt.Errorf("audit --repair: refused: %w", err)}
	}
	msg := "nothing to repair: " + path + " ends in a complete, valid entry and its head agrees\n"
	if rec.Length > 0 || rec.HeadProblem != nil {
		msg = ""
	}
	if rec.HeadProblem != nil {
		msg += fmt.Sprintf("repaired: the head file (%s: %s) now names the last entry that verifies; recorded as entry %d (%s)\n",
			rec.HeadProblem.Code, rec.HeadProblem.Msg, rec.HeadEntry.Seq, rec.HeadEntry.Type)
	}
	if rec.Length > 0 {
		msg += fmt.Sprintf("repaired: moved %d torn bytes at offset %d to %s; recorded as entry %d (%s)\n",
			rec.Length, rec.Offset, rec.TornFile, rec.Entry.Seq, rec.Entry.Type)
	}
	if err := write(cmd, msg); err != nil {
		return err
	}
	// The repair looks at the tail only; say whether the whole chain holds.
	if _, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		return &exitError{code: exitAuditBad, err: fmt.Errorf("audit --repair: the chain still does not verify: %w", err)}
	}
	return nil
}

func auditList(cmd *cobra.Command, path string, fl *auditFlags) error {
	if fl.last < 0 {
		return fmt.Errorf("audit -n %d: want 0 or more", fl.last)
	}
	t := audit.EventType(fl.typ)
	if t != "" && !t.Known() {
		return fmt.Errorf("audit --type %q: unknown event type; known: %s", fl.typ, joinTypes())
	}
	var entries []audit.Entry
	err := audit.Scan(path, audit.Filter{Session: fl.session, Type: t, Last: fl.last},
		func(e audit.Entry) error { entries = append(entries, e); return nil })
	if errors.Is(err, fs.ErrNotExist) {
		return write(cmd, "no audit log at "+path+"\n")
	}
	var b bytes.Buffer
	writeEntries(&b, entries, fl.asJSON)
	if werr := flush(cmd, &b); werr != nil {
		return werr
	}
	if _, ok := audit.AsChainError(err); ok {
		return &exitError{code: exitAuditBad, err: fmt.Errorf("audit: the log is damaged: %w%s", err, repairHint(err))}
	}
	return err
}

func joinTypes() string {
	var s []string
	for _, t := range audit.EventTypes() {
		s = append(s, string(t))
	}
	return strings.Join(s, ", ")
}

// writeEntries prints entries as a table or as their stored lines.
func writeEntries(b *bytes.Buffer, entries []audit.Entry, asJSON bool) {
	if asJSON {
		for _, e := range entries {
			b.Write(e.Line())
		}
		return
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tTIME\tTYPE\tSESSION\tACTION\tTARGET\tDECISION\tRULE\tREASON")
	for _, e := range entries {
		reason := e.Reason
		if reason == "" {
			reason = e.Detail.Message
		}
		target := e.Detail.Target
		if target == "" {
			target = e.Detail.Path
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Seq,
			e.Time.Format("2006-01-02T15:04:05.000Z07:00"), e.Type, dash(e.Session), dash(e.ActionType),
			dash(clipRunes(target, 60)), dash(e.Decision), dash(e.Rule), dash(reason))
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
}

// clipRunes cuts s to n runes, marking the cut with "…" (the whole
// target is in --json).
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// dash shows an empty field as "-" and escapes what a terminal would
// interpret (control, format and bidi characters), so a logged string
// cannot rewrite the screen.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsGraphic(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
