package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Recovery says what Recover did. A zero Length means nothing was torn.
type Recovery struct {
	Offset   int64  // where the torn bytes started
	Length   int64  // how many there were
	TornFile string // where they were moved
	Entry    Entry  // the IntegrityViolation entry recording it
}

// maxTornFiles bounds the search for a free audit.jsonl.torn-<n> name.
const maxTornFiles = 1000

// Recover repairs a torn tail, the one damage a crash can cause: the bytes
// after the last newline are moved to PATH.torn-<n> (kept as evidence),
// the log is cut back to its last complete entry, and an
// IntegrityViolation entry recording the offset, the length, the file and
// the SHA-256 of the torn bytes is appended to the chain. Recover refuses
// anything else (a bad complete entry, a head that does not match): that
// is not a crash artefact and needs a human. It holds the exclusive lock
// throughout, so it is safe against concurrent writers.
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
		if err := l.load(); err != nil {
			return err
		}
		if l.t.torn() == 0 {
			return nil
		}
		var err error
		rec, err = l.moveTorn()
		return err
	})
	if err = errors.Join(err, l.f.Close()); err != nil {
		return Recovery{}, fmt.Errorf("recover audit log: %w", err)
	}
	return rec, nil
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
