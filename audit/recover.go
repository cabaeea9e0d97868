package audit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Recovery says what Recover did. A zero Length means nothing was torn;
// a nil HeadProblem means the head file agreed with the log.
type Recovery struct {
	Offset   int64  // where the torn bytes started
	Length   int64  // how many there were
	TornFile string // where they were moved
	Entry    Entry  // the IntegrityViolation entry recording it

	HeadProblem *ChainError // what was wrong with the head file, if anything
	HeadEntry   Entry       // the IntegrityViolation entry recording it
}

// maxTornFiles bounds the search for a free audit.jsonl.torn-<n> name.
const maxTornFiles = 1000

// Recover repairs the end of a log, losing nothing that verifies:
//
//   - a torn tail (bytes after the last newline, an interrupted write or a
//     truncation): the bytes are moved to PATH.torn-<n> (kept as evidence),
//     the log is cut back to its last complete entry, and an
//     IntegrityViolation entry (torn_tail) records the offset, the length,
//     the file and the SHA-256 of the torn bytes;
//   - a head file that disagrees with the log (head_mismatch: it names a
//     later entry, one of those torn, or another hash), is missing
//     (head_missing) or unreadable (head_unreadable): it is rewritten to the
//     last entry that verifies, and an IntegrityViolation entry with that
//     code records what the head said (seq, hash).
//
// Every complete entry must verify first: a bad entry, a broken link or a
// gap in the chain is not repaired (that is not the end of the log, and
// needs a human). Recover holds the exclusive lock throughout, so it is
// safe against concurrent writers.
func Recover(path string, opts Options) (Recovery, error) {
	if _, err := os.Stat(path); err != nil {
		return Recovery{}, fmt.Errorf("recover audit log: %w", err)
	}
	l, err := openLog(path, opts)
	if err != nil {
		return Recovery{}, fmt.Errorf("recover audit log: %w", err)
	}
	var rec Recovery
	err = l.withLock(func() error {
		var err error
		rec, err = l.repairLocked()
		return err
	})
	if err = errors.Join(err, l.f.Close()); err != nil {
		return Recovery{}, fmt.Errorf("recover audit log: %w", err)
	}
	return rec, nil
}

// repairLocked verifies the complete entries, fixes the head, then moves
// torn bytes aside, recording each repair. It runs under the lock.
func (l *Log) repairLocked() (Recovery, error) {
	st, err := l.f.Stat()
	if err != nil {
		return Recovery{}, fmt.Errorf("stat audit log %s: %w", l.path, err)
	}
	t, err := readTail(l.f, l.path, st.Size())
	if err != nil {
		return Recovery{}, err
	}
	head, headProblem, err := l.checkComplete(t)
	if err != nil {
		return Recovery{}, err
	}
	l.t = t
	var rec Recovery
	if headProblem != nil {
		// The head goes first: every commit checks it against the log.
		if err := l.writeHead(Anchor{Seq: t.seq, Hash: t.hash}, true); err != nil {
			return Recovery{}, err
		}
	}
	if t.torn() > 0 {
		if rec, err = l.moveTorn(); err != nil {
			return Recovery{}, err
		}
	}
	if headProblem != nil {
		rec.HeadProblem = headProblem
		if rec.HeadEntry, err = l.recordHead(headProblem, head, t); err != nil {
			return Recovery{}, err
		}
	}
	return rec, nil
}

// checkComplete verifies every complete entry (the t.size first bytes).
// A problem of the head file is returned as headProblem, with what the
// head said; any other problem is an error: it is not repairable.
func (l *Log) checkComplete(t tail) (head *Anchor, headProblem *ChainError, err error) {
	h, exists, herr := readHead(l.headPath)
	if herr != nil {
		ce, ok := AsChainError(herr)
		if !ok {
			return nil, nil, herr
		}
		headProblem = ce
	}
	if exists && herr == nil {
		head = &h
	}
	_, verr := verifyStream(io.NewSectionReader(l.f, 0, t.size), l.path, head, herr == nil, nil)
	if ce, ok := AsChainError(verr); ok && isHeadCode(ce.Code) {
		headProblem = ce // the pin failed; now check the chain itself, to its end
		_, verr = verifyStream(io.NewSectionReader(l.f, 0, t.size), l.path, nil, false, nil)
	}
	if verr != nil {
		return nil, nil, verr
	}
	return head, headProblem, nil
}

func isHeadCode(c Code) bool {
	return c == CodeHeadMismatch || c == CodeHeadMissing || c == CodeHeadUnreadable
}

// recordHead appends the IntegrityViolation recording what the head said
// before it was rewritten to t.
func (l *Log) recordHead(p *ChainError, old *Anchor, t tail) (Entry, error) {
	said := "the head file was " + map[Code]string{CodeHeadMissing: "missing", CodeHeadUnreadable: "unreadable"}[p.Code]
	d := Detail{Code: string(p.Code), Path: filepath.Base(l.headPath)}
	if old != nil {
		said = fmt.Sprintf("the head file recorded seq %d %s", old.Seq, old.Hash)
		d.Ref, d.Count = old.Hash, int64(old.Seq) //nolint:gosec // seqs are far below 2^63
	}
	d.Message = fmt.Sprintf("%s; the last entry that verifies is seq %d %s; the head was rewritten to it", said, t.seq, t.hash)
	e, err := prepare(&Event{Type: IntegrityViolation, Detail: d}, nil)
	if err != nil {
		return Entry{}, err
	}
	r := &request{entry: e, done: make(chan result, 1)}
	if err := l.commitLocked([]*request{r}); err != nil {
		return Entry{}, err
	}
	return (<-r.done).entry, nil
}

// moveTorn does the repair under the lock.
func (l *Log) moveTorn() (Recovery, error) {
	rec := Recovery{Offset: l.t.size, Length: l.t.torn()}
	torn := make([]byte, rec.Length)
	if _, err := l.f.ReadAt(torn, rec.Offset); err != nil {
		return Recovery{}, fmt.Errorf("read torn bytes of %s: %w", l.path, err)
	}
	name, err := saveTorn(l.path, torn)
	if err != nil {
		return Recovery{}, err
	}
	rec.TornFile = name
	if err := l.f.Truncate(rec.Offset); err != nil {
		return Recovery{}, fmt.Errorf("cut torn bytes from %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return Recovery{}, fmt.Errorf("sync %s: %w", l.path, err)
	}
	l.t.fileSize = rec.Offset
	e, err := prepare(&Event{Type: IntegrityViolation, Detail: Detail{
		Code:    string(CodeTornTail),
		Message: fmt.Sprintf("moved %d torn bytes at offset %d to %s", rec.Length, rec.Offset, filepath.Base(name)),
		Path:    filepath.Base(name),
		Ref:     sumHex(torn),
		Offset:  rec.Offset,
		Length:  rec.Length,
	}}, nil)
	if err != nil {
		return Recovery{}, err
	}
	r := &request{entry: e, done: make(chan result, 1)}
	if err := l.commitLocked([]*request{r}); err != nil {
		return Recovery{}, err
	}
	rec.Entry = (<-r.done).entry
	return rec, nil
}

// saveTorn writes the torn bytes to the first free PATH.torn-<n>, durably.
func saveTorn(path string, torn []byte) (string, error) {
	for n := 1; n <= maxTornFiles; n++ {
		name := path + ".torn-" + strconv.Itoa(n)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // derived from the log path
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save torn bytes to %s: %w", name, err)
		}
		_, err = f.Write(torn)
		if err == nil {
			err = f.Sync()
		}
		if err = errors.Join(err, f.Close()); err != nil {
			return "", fmt.Errorf("save torn bytes to %s: %w", name, err)
		}
		return name, syncDir(filepath.Dir(name))
	}
	return "", fmt.Errorf("save torn bytes of %s: %d torn files exist already", path, maxTornFiles)
}
