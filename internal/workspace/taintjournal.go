package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parallax/parallax/internal/flock"
)

// The taint journal keeps the taint raises the database could not write,
// so that no process loses one to a full disk: a hook process ends after
// one call, and what it could not record must still taint the session at
// the next call. The hook writes a result's raise here before it opens
// the database at all (JournalTaint), since opening it may already fail.
//
// The file (.parallax/taint.pending) is written full of zero bytes ahead
// of need (journalSize, at init and by every open of the workspace), and
// a raise is a JSON line written in place over the first zero bytes: the
// blocks are already the file's, so the write lands on a full disk. Lines
// end at the first zero byte. Every read of a taint first replays the
// lines into the database and zeroes them again; while a line cannot be
// replayed, every session of the workspace reads as critical (the journal
// does not say which sessions descend from the one it names).
//
// A process that cannot write even here sets the sticky bit of the file
// (MarkUnrecorded: a change of the inode, no block): while it is set every
// session reads as critical, until a human clears it (doctor says how).
const taintJournalFile = "taint.pending"

// journalSize is the room written ahead for raises: a few hundred lines.
const journalSize = 64 << 10

// TaintJournalPath is the taint journal of the workspace at root.
func TaintJournalPath(root string) string { return filepath.Join(StateDir(root), taintJournalFile) }

// ErrTaintUnrecorded is returned by every read of a taint while a raise
// could not be recorded anywhere (the journal's sticky bit).
var ErrTaintUnrecorded = errors.New("a taint raise could not be recorded (the disk was full): every session " +
	"of this workspace reads as critical until it is cleared; run parallax doctor")

// pendingTaint is one line of the journal.
type pendingTaint struct {
	Session string `json:"session"`
	Level   int    `json:"level"`
	Source  string `json:"source"`
}

// raiseFunc writes one raise to the database (store.DB.RaiseTaint).
type raiseFunc func(ctx context.Context, session string, level int, source string) error

// JournalTaint records a raise of session to level in the taint journal
// of the workspace at root, durably, without opening the database: the
// next read of a taint writes it there. The hook calls it with what a
// result holds before anything else, so that a disk too full to open the
// database still keeps it.
func JournalTaint(root, session string, level int, source string) error {
	if session == "" || level < 0 {
		return fmt.Errorf("journal taint: session %q, level %d", session, level)
	}
	return journalTaint(TaintJournalPath(root), pendingTaint{Session: session, Level: level, Source: source})
}

// MarkUnrecorded sets the sticky bit of the workspace's taint journal,
// creating it empty when it is missing: the mark of a raise that could
// not be written anywhere. It needs no free block.
func MarkUnrecorded(root string) error {
	path := TaintJournalPath(root)
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("mark an unrecorded taint raise: %w", err)
	}
	err = f.Chmod(0o600 | os.ModeSticky)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// journalTaint writes a raise over the first free bytes of the journal at
// path and makes it durable. A line that could not be written whole is
// zeroed again.
func journalTaint(path string, p pendingTaint) (err error) {
	line, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	line = append(line, '\n')
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if err := flock.Lock(f, true); err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("journal taint in %s: %w", path, err)
	}
	off := usedBytes(b)
	if off > 0 && b[off-1] != '\n' {
		line = append([]byte{'\n'}, line...) // after a torn line, which stays bad
	}
	if _, err := f.WriteAt(line, int64(off)); err != nil {
		_, zerr := f.WriteAt(make([]byte, len(line)), int64(off))
		return fmt.Errorf("journal taint in %s: %w", path, errors.Join(err, zerr))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal taint in %s: %w", path, err)
	}
	_ = extendJournal(f, off+len(line)) // the room used is written ahead again, if there is space
	if errors.Is(statErr, os.ErrNotExist) {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

// usedBytes is the length of the journal's lines: up to the first zero.
func usedBytes(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i
	}
	return len(b)
}

// reserveJournal makes sure the taint journal at path has journalSize
// free bytes written ahead, creating it. Open calls it and ignores the
// error (on a full disk the room is what it is); init fails with it.
func reserveJournal(path string) (err error) {
	if st, err := os.Stat(path); err == nil && st.Size() >= journalSize/2 && allocated(st) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("reserve the taint journal: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if err := flock.Lock(f, true); err != nil {
		return fmt.Errorf("reserve the taint journal: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("reserve the taint journal %s: %w", path, err)
	}
	return extendJournal(f, usedBytes(b))
}

// extendJournal writes zeros from used so that journalSize bytes past it
// are the file's, and syncs them, once less than half of that is left.
func extendJournal(f *os.File, used int) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reserve the taint journal: %w", err)
	}
	if st.Size() >= int64(used+journalSize/2) && allocated(st) {
		return nil
	}
	end := max(st.Size(), int64(used+journalSize))
	start := int64(used)
	if allocated(st) {
		start = max(start, st.Size())
	}
	if _, err := f.WriteAt(make([]byte, end-start), start); err != nil {
		return fmt.Errorf("reserve the taint journal %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("reserve the taint journal %s: %w", f.Name(), err)
	}
	return nil
}

// replayJournal writes every raise of the journal at path to the database
// and zeroes the lines once all of them landed. A missing or unused
// journal costs a stat and a one-byte read.
func replayJournal(ctx context.Context, path string, raise raiseFunc) (err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("read taint journal: %w", err)
	case st.Mode()&os.ModeSticky != 0:
		return fmt.Errorf("%w (%s)", ErrTaintUnrecorded, path)
	case st.Size() == 0:
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("read taint journal: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if first := make([]byte, 1); !hasLine(f, first) {
		return nil
	}
	if err := flock.Lock(f, true); err != nil {
		return fmt.Errorf("read taint journal: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read taint journal %s: %w", path, err)
	}
	b = b[:usedBytes(b)]
	if len(b) == 0 {
		return nil
	}
	bad, err := eachPending(b, func(p pendingTaint) error {
		if err := raise(ctx, p.Session, p.Level, p.Source); err != nil {
			return fmt.Errorf("replay taint journal %s: %w", path, err)
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case bad > 0:
		return fmt.Errorf("taint journal %s line %d does not parse; check it and remove it", path, bad)
	}
	if _, err := f.WriteAt(make([]byte, len(b)), 0); err != nil {
		return fmt.Errorf("empty taint journal %s: %w", path, err)
	}
	return f.Sync()
}

// hasLine reports whether the journal's first byte starts a line (an
// unreadable one is taken as a line: the replay then says what failed).
func hasLine(f *os.File, buf []byte) bool {
	n, err := f.ReadAt(buf, 0)
	return n == 0 && err != nil && !errors.Is(err, io.EOF) || n == 1 && buf[0] != 0
}

// eachPending calls fn with the raise of each line of a journal's content,
// in order, and stops at fn's first error or at the first line that does
// not parse as a raise, whose number (from 1) it returns as bad. Doctor
// reads the journal with it, so that it reports what a replay will do.
func eachPending(b []byte, fn func(pendingTaint) error) (bad int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for n := 1; sc.Scan(); n++ {
		var p pendingTaint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil || p.Session == "" {
			return n, nil
		}
		if err := fn(p); err != nil {
			return 0, err
		}
	}
	return 0, nil
}
