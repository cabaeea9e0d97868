package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrTooNew is returned by Open for a database whose schema version is
// newer than the newest migration this binary knows.
var ErrTooNew = errors.New("database schema is newer than this binary")

// migration is one numbered schema step. Versions are 1, 2, 3, … in
// order; a migration is never edited once released, only followed.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is the schema, oldest first. PRAGMA user_version holds the
// last applied version; schema_migrations keeps a readable history.
var migrations = []migration{
	{1, "sessions and taint", `
CREATE TABLE schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at INTEGER NOT NULL
);
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY CHECK (id <> ''),
	parent     TEXT NULL REFERENCES sessions (id) ON DELETE RESTRICT,
	started_at INTEGER NOT NULL,
	ended_at   INTEGER NULL,
	meta       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
	CHECK (parent IS NULL OR parent <> id)
);
CREATE INDEX sessions_parent ON sessions (parent);
CREATE TABLE session_taint (
	session TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	origin  TEXT NOT NULL,
	source  TEXT NOT NULL,
	level   INTEGER NOT NULL CHECK (level BETWEEN 0 AND 4),
	at      INTEGER NOT NULL,
	PRIMARY KEY (session, origin, source)
);
CREATE INDEX session_taint_level ON session_taint (session, level);
`},
	{2, "ifc activity", `
CREATE TABLE ifc_activity (
	path       TEXT PRIMARY KEY CHECK (path <> ''),
	level      INTEGER NOT NULL CHECK (level BETWEEN 0 AND 4),
	source     TEXT NOT NULL,
	session    TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);
`},
	{3, "chronicle index", `
CREATE TABLE snapshots (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	created_at    INTEGER NOT NULL,
	reason        TEXT NOT NULL,
	session       TEXT NOT NULL,
	paths         TEXT NOT NULL CHECK (json_valid(paths)),
	files         INTEGER NOT NULL,
	bytes         INTEGER NOT NULL,
	new_bytes     INTEGER NOT NULL,
	manifest_hash TEXT NOT NULL,
	prev_hash     TEXT NOT NULL,
	hash          TEXT NOT NULL
);
CREATE TABLE snapshot_files (
	snapshot INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
	path     TEXT NOT NULL,
	type     TEXT NOT NULL CHECK (type IN ('file', 'dir', 'symlink', 'absent')),
	mode     INTEGER NOT NULL,
	size     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	object   TEXT NOT NULL,
	link     TEXT NOT NULL,
	PRIMARY KEY (snapshot, path)
) WITHOUT ROWID;
CREATE TABLE chronicle_cache (
	path     TEXT PRIMARY KEY,
	dev      INTEGER NOT NULL,
	ino      INTEGER NOT NULL,
	size     INTEGER NOT NULL,
	mode     INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	ctime_ns INTEGER NOT NULL,
	object   TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE chronicle_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`},
	{4, "usage metrics", `
CREATE TABLE usage (
	day   TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
	key   TEXT NOT NULL CHECK (key <> ''),
	count INTEGER NOT NULL,
	PRIMARY KEY (day, key)
) WITHOUT ROWID;
`},
	{5, "activity labels", `
ALTER TABLE ifc_activity ADD COLUMN labels TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(labels));
CREATE INDEX ifc_activity_level ON ifc_activity (level);
`},
	{6, "taint lookup order", `
CREATE INDEX session_taint_top ON session_taint (session, level DESC, at, source);
`},
	{7, "llm usage", `
CREATE TABLE llm_usage (
	day            TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
	session        TEXT NOT NULL,
	model          TEXT NOT NULL CHECK (model <> ''),
	calls          INTEGER NOT NULL CHECK (calls >= 0),
	input_tokens   INTEGER NOT NULL CHECK (input_tokens >= 0),
	output_tokens  INTEGER NOT NULL CHECK (output_tokens >= 0),
	cost_micro_usd INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
	PRIMARY KEY (day, session, model)
) WITHOUT ROWID;
CREATE INDEX llm_usage_session ON llm_usage (session, day);
`},
	{8, "conversations", `
CREATE TABLE conversations (
	id           TEXT PRIMARY KEY CHECK (id <> ''),
	title        TEXT NOT NULL DEFAULT '',
	title_source TEXT NOT NULL DEFAULT '' CHECK (title_source IN ('', 'first', 'model', 'user')),
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL
);
CREATE INDEX conversations_updated ON conversations (updated_at DESC);
CREATE TABLE conversation_messages (
	conversation TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	seq          INTEGER NOT NULL CHECK (seq > 0),
	role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
	text         TEXT NOT NULL,
	at           INTEGER NOT NULL,
	PRIMARY KEY (conversation, seq)
) WITHOUT ROWID;
CREATE TABLE conversation_turns (
	conversation TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	id           TEXT NOT NULL CHECK (id <> ''),
	seq          INTEGER NOT NULL CHECK (seq > 0),
	started_at   INTEGER NOT NULL,
	undone_at    INTEGER NULL,
	PRIMARY KEY (conversation, id),
	UNIQUE (conversation, seq)
) WITHOUT ROWID;
CREATE TABLE turn_snapshots (
	conversation TEXT NOT NULL,
	turn         TEXT NOT NULL,
	snapshot     INTEGER NOT NULL CHECK (snapshot > 0),
	PRIMARY KEY (conversation, turn, snapshot),
	FOREIGN KEY (conversation, turn) REFERENCES conversation_turns (conversation, id) ON DELETE CASCADE
) WITHOUT ROWID;
`},
	{9, "turn effects", `
CREATE TABLE turn_effects (
	conversation TEXT NOT NULL,
	turn         TEXT NOT NULL,
	kind         TEXT NOT NULL CHECK (kind IN ('write', 'network')),
	subject      TEXT NOT NULL CHECK (subject <> '' AND length(subject) <= 512),
	PRIMARY KEY (conversation, turn, kind, subject),
	FOREIGN KEY (conversation, turn) REFERENCES conversation_turns (conversation, id) ON DELETE CASCADE
) WITHOUT ROWID;
`},
}

// SchemaVersion is the newest schema this binary knows.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// Version reports the database's schema version.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	if err := db.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", db.path, err)
	}
	return v, nil
}

// migrate applies every pending migration, each in its own BEGIN
// IMMEDIATE transaction, so concurrent openers apply each step once. A
// failing migration is rolled back and named in the error; earlier ones
// stay applied.
func migrate(ctx context.Context, w *sql.DB, list []migration, now func() time.Time) error {
	for i, m := range list {
		if m.version != i+1 {
			return fmt.Errorf("migration table: entry %d has version %d", i, m.version)
		}
	}
	newest := len(list)
	for {
		done, err := migrateOne(ctx, w, list, newest, now)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next pending migration; done is true when none
// is left.
func migrateOne(ctx context.Context, w *sql.DB, list []migration, newest int, now func() time.Time) (done bool, err error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, fmt.Errorf("migrate: read schema version: %w", err)
	}
	switch {
	case v > newest:
		return false, fmt.Errorf("%w: schema version %d, this binary knows up to %d (upgrade parallax)", ErrTooNew, v, newest)
	case v < 0:
		return false, fmt.Errorf("migrate: invalid schema version %d", v)
	case v == newest:
		return true, tx.Rollback()
	}
	m := list[v]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("apply migration %d (%s): %w", m.version, m.name, err)
	}
	// The version cannot be a bound parameter in a PRAGMA.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return false, fmt.Errorf("apply migration %d (%s): set version: %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.version, m.name, nanos(now())); err != nil {
		return false, fmt.Errorf("apply migration %d (%s): record: %w", m.version, m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("apply migration %d (%s): commit: %w", m.version, m.name, err)
	}
	return false, nil
}
