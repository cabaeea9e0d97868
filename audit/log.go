package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parallax/parallax/internal/flock"
)

// Options configure a Log. The zero value is usable.
type Options struct {
	// Clock stamps entries; nil means time.Now.
	Clock func() time.Time
	// Redactor cleans reason, detail message and detail path before they
	// are hashed and written; nil leaves them as given (still bounded).
	Redactor Redactor
	// MaxBatch bounds the entries written with one fsync; 0 means 256.
	MaxBatch int
	// Fault, for tests of a full disk, is asked before each write ("write")
	// and fsync ("sync") of a batch: an error fails it as the kernel would
	// (a failed write writes nothing). nil: no faults.
	Fault func(op string) error
}

// Log appends entries to one audit file. It is safe for concurrent use;
// other processes may append to the same file at the same time.
type Log struct {
	path, headPath string
	clock          func() time.Time
	redactor       Redactor
	maxBatch       int

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []*request
	closed bool
	done   chan struct{}

	// Owned by the committer goroutine.
	f      *os.File
	t      tail
	buf    []byte
	failed error   // the log's own failed write or fsync; retried before each batch
	fail   failure // what that failure left behind

	batches, entries atomic.Uint64
	dequeued         atomic.Uint64         // requests taken off the queue (tests watch it)
	beforeSync       func()                // test hook: runs after write, before fsync
	fault            func(op string) error // Options.Fault
}

// request states: the committer takes a pending request, or Append
// cancels it; whichever comes first wins.
const (
	statePending int32 = iota
	stateTaken
	stateCancelled
)

type request struct {
	entry Entry
	probe bool // Check: no entry, answered with the log's state
	state atomic.Int32
	done  chan result
}

type result struct {
	entry Entry
	err   error
}

// Open opens (creating if needed) the log at path and its head file, and
// checks the tail: a torn tail, a bad last entry or a head that does not
// match is a *ChainError, and nothing can be appended until it is dealt
// with (Recover handles a torn tail).
func Open(path string, opts Options) (*Log, error) {
	l, err := openLog(path, opts)
	if err != nil {
		return nil, err
	}
	if err := l.withLock(l.load); err != nil {
		return nil, errors.Join(fmt.Errorf("open audit log: %w", err), l.f.Close())
	}
	if l.t.torn() > 0 {
		return nil, errors.Join(fmt.Errorf("open audit log: %w", tornError(path, l.t)), l.f.Close())
	}
	l.done = make(chan struct{})
	go l.run()
	return l, nil
}

// openLog opens the file without looking at it.
func openLog(path string, opts Options) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) //nolint:gosec // the caller names its audit file
	if err != nil {
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	l := &Log{
		path: path, headPath: HeadPath(path), clock: opts.Clock,
		redactor: opts.Redactor, maxBatch: opts.MaxBatch, fault: opts.Fault, f: f,
	}
	if l.clock == nil {
		l.clock = time.Now
	}
	if l.maxBatch <= 0 {
		l.maxBatch = 256
	}
	l.cond = sync.NewCond(&l.mu)
	return l, nil
}

// withLock runs fn holding the exclusive file lock.
func (l *Log) withLock(fn func() error) error {
	if err := flock.Lock(l.f, true); err != nil {
		return err
	}
	err := fn()
	return errors.Join(err, flock.Unlock(l.f))
}

// load reads the tail and the head (creating the head of a new chain).
// It runs under the lock. Torn bytes are left for the caller to judge.
func (l *Log) load() error {
	t, exists, err := l.inspect()
	if err != nil {
		return err
	}
	if !exists || t.fileSize == 0 {
		if err := l.writeHead(Anchor{Seq: t.seq, Hash: t.hash}, true); err != nil {
			return err
		}
	}
	l.t = t
	return nil
}

// inspect reads the last complete entry and the head and checks they
// agree. It runs under the lock.
func (l *Log) inspect() (t tail, headExists bool, err error) {
	st, err := l.f.Stat()
	if err != nil {
		return tail{}, false, fmt.Errorf("stat audit log %s: %w", l.path, err)
	}
	if t, err = readTail(l.f, l.path, st.Size()); err != nil {
		return tail{}, false, err
	}
	h, exists, err := readHead(l.headPath)
	var ce *ChainError
	if errors.As(err, &ce) && st.Size() == 0 {
		exists, err = false, nil // a crash while creating the head of an empty log
	}
	if err != nil {
		return tail{}, false, err
	}
	return t, exists, checkHead(l.path, t, h, exists)
}

// writeHead overwrites the head record in place; create makes a new head
// file durable (file and directory entry).
func (l *Log) writeHead(a Anchor, create bool) error {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE | os.O_TRUNC
	}
	hf, err := os.OpenFile(l.headPath, flag, 0o600)
	if err != nil {
		return fmt.Errorf("open audit head %s: %w", l.headPath, err)
	}
	_, err = hf.WriteAt(formatHead(a), 0)
	if err == nil && create {
		err = hf.Sync()
	}
	if err = errors.Join(err, hf.Close()); err != nil {
		return fmt.Errorf("write audit head %s: %w", l.headPath, err)
	}
	if create {
		return syncDir(filepath.Dir(l.headPath))
	}
	return nil
}

// Path returns the log's file name.
func (l *Log) Path() string { return l.path }

// Stats counts committed batches (one fsync each) and entries.
type Stats struct {
	Batches, Entries uint64
}

// Stats returns the counters since Open.
func (l *Log) Stats() Stats {
	return Stats{Batches: l.batches.Load(), Entries: l.entries.Load()}
}

// Append records ev and returns the committed entry once it is durable
// (written and fsynced, with every entry before it). Concurrent calls are
// committed together, one write and one fsync per batch.
//
// If ctx ends while the entry waits for its batch, Append returns the
// context's error and the entry is never written. Once the batch holding
// it is being written the entry is committed anyway: Append then waits
// for the fsync and reports the entry, so the caller never believes an
// entry that is on disk was dropped.
func (l *Log) Append(ctx context.Context, ev Event) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, fmt.Errorf("append %s to audit log %s: %w", ev.Type, l.path, err)
	}
	e, err := prepare(&ev, l.redactor)
	if err != nil {
		return Entry{}, fmt.Errorf("append to audit log %s: %w", l.path, err)
	}
	r := &request{entry: e, done: make(chan result, 1)}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return Entry{}, fmt.Errorf("append %s to audit log %s: %w", ev.Type, l.path, ErrClosed)
	}
	l.queue = append(l.queue, r)
	l.cond.Signal()
	l.mu.Unlock()
	select {
	case res := <-r.done:
		return res.entry, res.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(statePending, stateCancelled) {
			return Entry{}, fmt.Errorf("append %s to audit log %s: %w", ev.Type, l.path, ctx.Err())
		}
		res := <-r.done
		return res.entry, res.err
	}
}

// Close commits what is queued, stops the committer and closes the file.
// Appends after Close fail with ErrClosed. Close is idempotent.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		<-l.done
		return nil
	}
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	<-l.done
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close audit log %s: %w", l.path, err)
	}
	return nil
}

// run is the committer: it takes what is queued, up to MaxBatch, and
// commits it, until the log is closed and the queue is empty.
func (l *Log) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.closed {
			l.cond.Wait()
		}
		n := min(len(l.queue), l.maxBatch)
		batch := make([]*request, n)
		copy(batch, l.queue)
		l.queue = append(l.queue[:0], l.queue[n:]...)
		l.dequeued.Add(uint64(n))
		l.mu.Unlock()
		if n == 0 {
			return // closed and drained
		}
		l.commit(batch)
	}
}
