package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned when a row asked for by key does not exist.
var ErrNotFound = errors.New("not found")

// DefaultBusyTimeout is how long a connection waits for another process's
// write lock before SQLite reports SQLITE_BUSY. Hook processes are short
// and many, and a write holds the lock for about a millisecond; the
// generous bound only matters on a machine so loaded that the lock is
// never free, where failing (and so blocking the action) is the answer.
const DefaultBusyTimeout = 30 * time.Second

// DB is one workspace database. It is safe for concurrent use by many
// goroutines; several processes may open the same file.
type DB struct {
	path string
	now  func() time.Time

	mu sync.Mutex // serialises write transactions in this process
	// writeErr is the storage failure (full disk, I/O error) of the last
	// write, nil once a write lands again. Guarded by mu.
	writeErr error
	w        *sql.DB // exactly one connection, BEGIN IMMEDIATE
	r        *sql.DB // read-only pool
}

// Option configures Open.
type Option func(*config)

type config struct {
	now         func() time.Time
	busyTimeout time.Duration
}

// WithClock sets the clock used for every timestamp the store writes.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithBusyTimeout sets how long to wait for another writer's lock.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) { c.busyTimeout = d }
}

// Open opens (creating if needed) the database at path, applies pending
// migrations and returns it. Parent directories are created 0700 and the
// file 0600. A database written by a newer schema than this binary knows
// is refused with ErrTooNew.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	cfg := config{now: time.Now, busyTimeout: DefaultBusyTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.now == nil {
		return nil, fmt.Errorf("open store %s: nil clock", path)
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("open store %s: path must be absolute", path)
	}
	if err := prepareFile(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db := &DB{path: path, now: cfg.now}
	var err error
	if db.w, err = openPool(path, cfg.busyTimeout, false); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.w.SetMaxOpenConns(1)
	db.w.SetMaxIdleConns(1)
	db.w.SetConnMaxLifetime(0)
	unlock, err := setupLock(path)
	if err != nil {
		_ = db.w.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	err = retryBusy(ctx, cfg.busyTimeout, func() error {
		if err := db.checkWAL(ctx); err != nil {
			return err
		}
		return migrate(ctx, db.w, migrations, db.now)
	})
	unlock()
	if err != nil {
		_ = db.w.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if db.r, err = openPool(path, cfg.busyTimeout, true); err != nil {
		_ = db.w.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	errW := db.w.Close()
	errR := db.r.Close()
	if err := errors.Join(errW, errR); err != nil {
		return fmt.Errorf("close store %s: %w", db.path, err)
	}
	return nil
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Now is the store's clock; callers that stamp records the store keeps use
// it so tests control every timestamp from one place.
func (db *DB) Now() time.Time { return db.now() }

// prepareFile creates the parent directories (0700) and the database file
// (0600) before SQLite sees it, so SQLite's WAL and shared-memory files
// inherit 0600. An existing symlink or non-regular file is refused.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return prepareFile(path) // another process won the race
		}
		if err != nil {
			return fmt.Errorf("create file: %w", err)
		}
		return f.Close()
	case err != nil:
		return fmt.Errorf("inspect file: %w", err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	case st.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("restrict mode: %w", err)
		}
	}
	return nil
}

// openPool opens a database/sql pool whose every connection carries the
// same pragmas.
//
// synchronous=FULL: a commit is on disk (the WAL fsynced) before it
// returns. Chronicle records a snapshot before the action it protects runs,
// and taint must not silently fall back to a lower level after a power
// loss; NORMAL would keep the file consistent but could drop the last
// commits. The cost is one fsync per write transaction.
func openPool(path string, busy time.Duration, readOnly bool) (*sql.DB, error) {
	q := []string{
		fmt.Sprintf("_busy_timeout=%d", busy.Milliseconds()),
		"_foreign_keys=1",
		"_journal_mode=WAL",
		"_synchronous=FULL",
	}
	if readOnly {
		q = append(q, "_query_only=1")
	} else {
		q = append(q, "_txlock=immediate")
	}
	dsn := "file:" + escapeURIPath(path) + "?" + strings.Join(q, "&")
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	return pool, nil
}

// escapeURIPath escapes the characters that end or alter the path part of
// an SQLite file: URI.
func escapeURIPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// retryBusy runs fn again while it fails with SQLITE_BUSY, for at most
// limit. SQLite answers BUSY without waiting when waiting could deadlock
// (two new connections switching a fresh file to WAL, or upgrading a read
// to a write at once): opening must then try again, not fail.
func retryBusy(ctx context.Context, limit time.Duration, fn func() error) error {
	deadline := time.Now().Add(limit)
	wait := time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// isBusy reports an SQLITE_BUSY or SQLITE_LOCKED error, or the
// IOERR_DELETE_NOENT a connection meets when another one removed the
// journal it was about to remove (new files switching to WAL at once).
func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED ||
			se.Code() == sqlite3.SQLITE_IOERR_DELETE_NOENT
	}
	return false
}

// checkWAL confirms that the journal mode really is WAL: SQLite silently
// keeps another mode where WAL is impossible (some network filesystems).
func (db *DB) checkWAL(ctx context.Context) error {
	var mode string
	if err := db.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("read journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal (is the filesystem local?)", mode)
	}
	return nil
}

// write runs fn in one write transaction (BEGIN IMMEDIATE), serialised
// with every other write of this process. what names the operation in
// errors.
func (db *DB) write(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return db.noteWrite(fmt.Errorf("%s: begin: %w", what, err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return db.noteWrite(fmt.Errorf("%s: %w", what, err))
	}
	if err := tx.Commit(); err != nil {
		return db.noteWrite(fmt.Errorf("%s: commit: %w", what, err))
	}
	db.writeErr = nil
	return nil
}

// noteWrite keeps err as the store's write failure when it is one of
// storage (not a refused value or a busy lock). It runs under mu.
func (db *DB) noteWrite(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN:
			db.writeErr = err
		}
	}
	return err
}

// probeBlob is the size of the row Check writes: more than a page, so the
// write needs room the database may not have.
const probeBlob = 8 << 10

// Check reports whether the store can be written: nil, or the storage
// failure of its last write. After a failure it tries a write that leaves
// nothing behind (a row of probeBlob bytes inserted and deleted in one
// transaction), so it tells the truth again once the disk has room,
// without waiting for a real write.
func (db *DB) Check(ctx context.Context) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.writeErr == nil {
		return nil
	}
	tx, err := db.w.BeginTx(ctx, nil)
	if err == nil {
		_, err = tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (-1, randomblob(?), 0)", probeBlob)
		if err == nil {
			_, err = tx.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = -1")
		}
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
	}
	if err != nil {
		return fmt.Errorf("store %s cannot be written: %w", db.path, db.noteWrite(err))
	}
	db.writeErr = nil
	return nil
}

// nanos and fromNanos store times as Unix nanoseconds (INTEGER columns):
// exact, sortable and free of time-zone text.
func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// fromNullNanos maps NULL to the zero time.
func fromNullNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNanos(n.Int64)
}
