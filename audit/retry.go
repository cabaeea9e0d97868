package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
)

// CodeRecovered is the detail code of the ShieldError entry a Log
// appends when it can write again after a failed write or fsync.
const CodeRecovered = "audit_recovered"

// failure is what a failed batch left behind: where it started, what it
// wrote, and the number of appends refused since.
type failure struct {
	at      int64  // file size before the batch
	buf     []byte // the batch's bytes (nil: nothing reached the file)
	refused int64  // appends answered with an error since
}

// retry tries to bring a failed log back before a batch. It opens the file
// again (the old descriptor's error state is unknown after a failed
// fsync) and, under the lock, checks the tail and the head: bytes of its
// own failed batch that reached the file are written again in place and
// synced (the kernel may have dropped the dirty pages and marked them
// clean), an incomplete line of it is cut off. Anything else (another
// writer's torn tail, a head that disagrees) keeps the log failed. It
// returns the entry recording the recovery, to be committed first: the
// batch holding it proves the disk takes writes again.
func (l *Log) retry() (*request, error) {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_APPEND, 0) //nolint:gosec // the log's own file
	if err != nil {
		return nil, fmt.Errorf("reopen audit log %s: %w", l.path, err)
	}
	old := l.f
	l.f = f
	_ = old.Close() // its error state is what is being left behind
	if err := l.withLock(l.repairOwn); err != nil {
		return nil, err
	}
	ev := Event{Type: ShieldError, Detail: Detail{Code: CodeRecovered, Count: l.fail.refused,
		Message: "the audit chain could not be written (disk full or I/O error); appends refused in between were answered as errors, " +
			"and entries written but not confirmed then were answered as blocks"}}
	e, err := prepare(&ev, l.redactor)
	if err != nil {
		return nil, err
	}
	r := &request{entry: e, done: make(chan result, 1)}
	l.failed = nil // l.fail stays until a batch commits
	return r, nil
}

// repairOwn puts the file back in a known state after the log's own failed
// batch. It runs under the lock.
func (l *Log) repairOwn() error {
	st, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("stat audit log %s: %w", l.path, err)
	}
	size := st.Size()
	if own := l.fail.buf; len(own) > 0 && size > l.fail.at && size <= l.fail.at+int64(len(own)) {
		got := make([]byte, size-l.fail.at)
		if _, err := l.f.ReadAt(got, l.fail.at); err != nil {
			return fmt.Errorf("read audit log %s: %w", l.path, err)
		}
		if bytes.Equal(got, own[:len(got)]) {
			keep := int64(bytes.LastIndexByte(got, '\n') + 1)
			if err := l.rewrite(got[:keep], l.fail.at); err != nil {
				return err
			}
			if keep < int64(len(got)) {
				if err := l.f.Truncate(l.fail.at + keep); err != nil {
					return fmt.Errorf("cut back audit log %s: %w", l.path, err)
				}
			}
		}
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync audit log %s: %w", l.path, err)
	}
	return l.refresh()
}

// rewrite writes b again at off (a descriptor without O_APPEND) and syncs.
func (l *Log) rewrite(b []byte, off int64) error {
	if len(b) == 0 {
		return nil
	}
	w, err := os.OpenFile(l.path, os.O_WRONLY, 0) //nolint:gosec // the log's own file
	if err != nil {
		return fmt.Errorf("rewrite audit log %s: %w", l.path, err)
	}
	_, err = w.WriteAt(b, off)
	if err == nil {
		err = w.Sync()
	}
	if err = errors.Join(err, w.Close()); err != nil {
		return fmt.Errorf("rewrite audit log %s: %w", l.path, err)
	}
	return nil
}

// Check reports whether the log can be written: nil, or the failure that
// keeps it from appending. A log that failed is retried (which appends
// the entry recording the recovery), so Check answers the truth again
// once the disk takes writes, without waiting for an Append.
func (l *Log) Check(ctx context.Context) error {
	r := &request{probe: true, done: make(chan result, 1)}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return fmt.Errorf("check audit log %s: %w", l.path, ErrClosed)
	}
	l.queue = append(l.queue, r)
	l.cond.Signal()
	l.mu.Unlock()
	select {
	case res := <-r.done:
		return res.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(statePending, stateCancelled) {
			return fmt.Errorf("check audit log %s: %w", l.path, ctx.Err())
		}
		return (<-r.done).err
	}
}
