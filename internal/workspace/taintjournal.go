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
// the next call. It is a small append-only file (.parallax/taint.pending):
// appending a line often works when SQLite cannot grow its files. Every
// read of a taint first replays the journal into the database and empties
// it; while a line cannot be replayed, every session of the workspace
// reads as critical (the journal does not say which sessions descend from
// the one it names). Opening a workspace keeps room allocated past the
// journal's end (reserveJournal), so that an append needs no new block.
const taintJournalFile = "taint.pending"

// TaintJournalPath is the taint journal of the workspace at root.
func TaintJournalPath(root string) string { return filepath.Join(StateDir(root), taintJournalFile) }

// pendingTaint is one line of the journal.
type pendingTaint struct {
	Session string `json:"session"`
	Level   int    `json:"level"`
	Source  string `json:"source"`
}

// raiseFunc writes one raise to the database (store.DB.RaiseTaint).
type raiseFunc func(ctx context.Context, session string, level int, source string) error

// journalTaint appends a raise to the journal at path and makes it
// durable. A line that could not be written whole is cut off again.
func journalTaint(path string, p pendingTaint) (err error) {
	line, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	line = append(line, '\n')
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if err := flock.Lock(f, true); err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal taint: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		return errors.Join(fmt.Errorf("journal taint in %s: %w", path, err), f.Truncate(st.Size()))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal taint in %s: %w", path, err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

// replayJournal writes every raise of the journal at path to the database
// and empties the journal once all of them landed. A missing or empty
// journal costs one stat.
func replayJournal(ctx context.Context, path string, raise raiseFunc) (err error) {
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("read taint journal: %w", err)
		}
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) //nolint:gosec // the workspace's own state file
	if err != nil {
		return fmt.Errorf("read taint journal: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if err := flock.Lock(f, true); err != nil {
		return fmt.Errorf("read taint journal: %w", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("read taint journal %s: %w", path, err)
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
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("empty taint journal %s: %w", path, err)
	}
	reserveFile(f) // cutting the file freed its reserve
	return f.Sync()
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
