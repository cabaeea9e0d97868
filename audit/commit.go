package audit

import (
	"errors"
	"fmt"
)

// commit writes one batch under the exclusive file lock and answers every
// request it took.
// A log that failed is retried first (retry); while it cannot be
// brought back every request of the batch is answered with the failure.
func (l *Log) commit(batch []*request) {
	if l.failed != nil {
		rec, err := l.retry()
		if err != nil {
			l.fail.refused += int64(len(batch))
			l.answer(batch, fmt.Errorf("%w (retry: %w)", l.failed, err))
			return
		}
		batch = append([]*request{rec}, batch...)
	}
	err := l.withLock(func() (err error) {
		// A panic while writing (a clock or an encoder bug) fails the
		// batch; it must not end the process from the committer
		// goroutine, and the file lock must be released. The next batch
		// re-reads the tail (refresh) before it writes.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error while writing the batch: %v", p)
			}
		}()
		return l.commitLocked(batch)
	})
	if err != nil {
		if l.failed != nil {
			l.fail.refused += int64(len(batch))
		}
		l.answer(batch, fmt.Errorf("append to audit log %s: %w", l.path, err))
	}
}

// answer fails every request of the batch that was not answered yet.
func (l *Log) answer(batch []*request, err error) {
	for _, r := range batch {
		if r.state.CompareAndSwap(statePending, stateTaken) || r.state.Load() == stateTaken {
			select {
			case r.done <- result{err: err}:
			default: // already answered
			}
		}
	}
}

// commitLocked takes the requests that were not cancelled, re-reads the
// tail if another process appended, writes the batch with one write and
// one fsync, then moves the head. It runs under the lock.
func (l *Log) commitLocked(batch []*request) error {
	live := make([]*request, 0, len(batch))
	var probes []*request
	for _, r := range batch {
		if r.state.CompareAndSwap(statePending, stateTaken) {
			if r.probe {
				probes = append(probes, r)
			} else {
				live = append(live, r)
			}
		}
	}
	defer func() {
		for _, r := range probes {
			r.done <- result{err: l.failed}
		}
	}()
	if len(live) == 0 {
		return nil
	}
	if err := l.refresh(); err != nil {
		return err
	}
	buf, seq, hash := l.buf[:0], l.t.seq, l.t.hash
	for _, r := range live {
		seq++
		r.entry.Seq, r.entry.Prev = seq, hash
		r.entry.Time = l.clock().UTC().Round(0)
		if err := checkTime(r.entry.Time); err != nil {
			return fmt.Errorf("clock: %w", err) // nothing written
		}
		buf = encodeLine(buf, &r.entry)
		hash = r.entry.Hash
	}
	l.buf = buf
	if err := l.writeDurable(buf); err != nil {
		l.failed = err
		l.fail = failure{at: l.t.fileSize, buf: append([]byte(nil), buf...), refused: l.fail.refused}
		return err
	}
	l.t = tail{fileSize: l.t.fileSize + int64(len(buf)), size: l.t.size + int64(len(buf)), seq: seq, hash: hash}
	if err := l.writeHead(Anchor{Seq: seq, Hash: hash}, false); err != nil {
		l.failed = fmt.Errorf("entries up to seq %d are durable but the head was not moved: %w", seq, err)
		l.fail = failure{at: l.t.fileSize, refused: l.fail.refused}
		return l.failed
	}
	l.fail = failure{}
	l.batches.Add(1)
	l.entries.Add(uint64(len(live)))
	for _, r := range live {
		r.done <- result{entry: r.entry}
	}
	return nil
}

// refresh re-reads the last entry and the head before every batch: another
// process may have appended, and nothing else may have changed them.
func (l *Log) refresh() error {
	t, _, err := l.inspect()
	if err != nil {
		return err
	}
	if t.torn() > 0 {
		return tornError(l.path, t)
	}
	l.t = t
	return nil
}

// writeDurable appends buf and fsyncs. On a failed write it cuts the file
// back to where it was; after a failed fsync the state of the page cache
// is unknown: the log refuses appends until retry has written the batch's
// bytes again and synced them.
func (l *Log) writeDurable(buf []byte) error {
	n, err := 0, l.injected("write")
	if err == nil {
		n, err = l.f.Write(buf)
	}
	if err != nil {
		if terr := l.f.Truncate(l.t.fileSize); terr != nil {
			err = errors.Join(err, fmt.Errorf("cut back %d partial bytes: %w", n, terr))
		}
		return fmt.Errorf("write audit log %s: %w", l.path, err)
	}
	if l.beforeSync != nil {
		l.beforeSync()
	}
	err = l.injected("sync")
	if err == nil {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("sync audit log %s: %w", l.path, err)
	}
	return nil
}

// injected is the fault a test injects into op, if any.
func (l *Log) injected(op string) error {
	if l.fault == nil {
		return nil
	}
	return l.fault(op)
}
