package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SnapshotRecord is one Chronicle snapshot in the index. Hash covers the
// record and ManifestHash (the snapshot's file list); PrevHash links it to
// the snapshot before it (or to the chain anchor).
type SnapshotRecord struct {
	ID           int64
	CreatedAt    time.Time
	Reason       string
	Session      string
	Paths        []string // the paths asked for, relative to the workspace
	Files        int64    // entries in the manifest
	Bytes        int64    // content bytes of the files it records
	NewBytes     int64    // bytes of objects this snapshot added to the store
	ManifestHash string
	PrevHash     string
	Hash         string
}

// FileRecord is one manifest entry: a path as it was.
type FileRecord struct {
	Path    string // relative to the workspace, slash-separated; "." is the workspace
	Type    string // "file", "dir", "symlink" or "absent"
	Mode    uint32 // permission bits with setuid, setgid, sticky (0o7777)
	Size    int64
	MtimeNS int64
	Object  string // content hash (files)
	Link    string // target (symlinks)
}

// StatEntry caches the content hash of a file by its stat data, so an
// unchanged file is not read again (like git's index).
type StatEntry struct {
	Path    string
	Dev     uint64
	Ino     uint64
	Size    int64
	Mode    uint32
	MtimeNS int64
	CtimeNS int64
	Object  string
}

// anchorKey holds the PrevHash the oldest retained snapshot must carry.
const anchorKey = "anchor"

// AddSnapshot stores a snapshot, its files and the stat cache updates in
// one transaction. It assigns ID and PrevHash (the newest snapshot's hash,
// else the anchor) and then calls seal to compute Hash, so the chain
// stays linear however many processes snapshot at once.
func (db *DB) AddSnapshot(ctx context.Context, rec SnapshotRecord, files []FileRecord, cache []StatEntry,
	seal func(*SnapshotRecord) (string, error)) (SnapshotRecord, error) {
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = db.now()
	}
	paths, err := json.Marshal(rec.Paths)
	if err != nil {
		return SnapshotRecord{}, fmt.Errorf("add snapshot: encode paths: %w", err)
	}
	err = db.write(ctx, "add snapshot", func(tx *sql.Tx) error {
		if rec.PrevHash, err = headHash(ctx, tx); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO snapshots
(created_at, reason, session, paths, files, bytes, new_bytes, manifest_hash, prev_hash, hash)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '')`, nanos(rec.CreatedAt), rec.Reason, rec.Session, string(paths),
			rec.Files, rec.Bytes, rec.NewBytes, rec.ManifestHash, rec.PrevHash)
		if err != nil {
			return err
		}
		if rec.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if rec.Hash, err = seal(&rec); err != nil {
			return fmt.Errorf("seal snapshot %d: %w", rec.ID, err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE snapshots SET hash = ? WHERE id = ?", rec.Hash, rec.ID); err != nil {
			return err
		}
		if err := insertFiles(ctx, tx, rec.ID, files); err != nil {
			return err
		}
		return upsertCache(ctx, tx, cache)
	})
	if err != nil {
		return SnapshotRecord{}, err
	}
	return rec, nil
}

// headHash is the hash a new snapshot links to.
func headHash(ctx context.Context, tx *sql.Tx) (string, error) {
	var h string
	err := tx.QueryRowContext(ctx, "SELECT hash FROM snapshots ORDER BY id DESC LIMIT 1").Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return readAnchor(ctx, tx)
	}
	if err != nil {
		return "", fmt.Errorf("read chain head: %w", err)
	}
	return h, nil
}

func readAnchor(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (string, error) {
	var a string
	err := q.QueryRowContext(ctx, "SELECT value FROM chronicle_meta WHERE key = ?", anchorKey).Scan(&a)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read chain anchor: %w", err)
	}
	return a, nil
}

// insertBatch is how many rows one INSERT carries: per-statement overhead
// dominates single-row inserts of large manifests.
const insertBatch = 128

// insertRows inserts rows with multi-row INSERT statements; head is the
// statement up to VALUES, cols the number of columns, tail an optional
// conflict clause, and args(i) the values of row i.
func insertRows(ctx context.Context, tx *sql.Tx, head string, cols int, tail string, n int, args func(i int) []any) error {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	for start := 0; start < n; start += insertBatch {
		end := min(start+insertBatch, n)
		vals := make([]string, 0, end-start)
		flat := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			vals = append(vals, row)
			flat = append(flat, args(i)...)
		}
		if _, err := tx.ExecContext(ctx, head+" VALUES "+strings.Join(vals, ", ")+tail, flat...); err != nil {
			return err
		}
	}
	return nil
}

func insertFiles(ctx context.Context, tx *sql.Tx, id int64, files []FileRecord) error {
	err := insertRows(ctx, tx, "INSERT INTO snapshot_files (snapshot, path, type, mode, size, mtime_ns, object, link)", 8, "",
		len(files), func(i int) []any {
			f := files[i]
			return []any{id, f.Path, f.Type, f.Mode, f.Size, f.MtimeNS, f.Object, f.Link}
		})
	if err != nil {
		return fmt.Errorf("insert files: %w", err)
	}
	return nil
}

func upsertCache(ctx context.Context, tx *sql.Tx, cache []StatEntry) error {
	err := insertRows(ctx, tx, "INSERT INTO chronicle_cache (path, dev, ino, size, mode, mtime_ns, ctime_ns, object)", 8,
		` ON CONFLICT (path) DO UPDATE SET dev = excluded.dev, ino = excluded.ino, size = excluded.size,
mode = excluded.mode, mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, object = excluded.object`,
		len(cache), func(i int) []any {
			c := cache[i]
			// SQLite integers are signed; device and inode numbers keep their bits.
			return []any{c.Path, int64(c.Dev), int64(c.Ino), c.Size, c.Mode, c.MtimeNS, c.CtimeNS, c.Object} //nolint:gosec // bit pattern preserved
		})
	if err != nil {
		return fmt.Errorf("update stat cache: %w", err)
	}
	return nil
}

const snapshotCols = "id, created_at, reason, session, paths, files, bytes, new_bytes, manifest_hash, prev_hash, hash"

func scanSnapshot(s scanner) (SnapshotRecord, error) {
	var r SnapshotRecord
	var at int64
	var paths string
	if err := s.Scan(&r.ID, &at, &r.Reason, &r.Session, &paths, &r.Files, &r.Bytes, &r.NewBytes,
		&r.ManifestHash, &r.PrevHash, &r.Hash); err != nil {
		return SnapshotRecord{}, err
	}
	r.CreatedAt = fromNanos(at)
	if err := json.Unmarshal([]byte(paths), &r.Paths); err != nil {
		return SnapshotRecord{}, fmt.Errorf("snapshot %d: decode paths: %w", r.ID, err)
	}
	return r, nil
}

// Snapshots lists every snapshot, oldest first.
func (db *DB) Snapshots(ctx context.Context) ([]SnapshotRecord, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT "+snapshotCols+" FROM snapshots ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	defer rows.Close()
	var out []SnapshotRecord
	for rows.Next() {
		r, err := scanSnapshot(rows)
		if err != nil {
			return nil, fmt.Errorf("list snapshots: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	return out, nil
}

// GetSnapshot returns one snapshot, or ErrNotFound.
func (db *DB) GetSnapshot(ctx context.Context, id int64) (SnapshotRecord, error) {
	r, err := scanSnapshot(db.r.QueryRowContext(ctx, "SELECT "+snapshotCols+" FROM snapshots WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return SnapshotRecord{}, fmt.Errorf("get snapshot %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return SnapshotRecord{}, fmt.Errorf("get snapshot %d: %w", id, err)
	}
	return r, nil
}

// PrevHashOf is the hash snapshot id must link to: the hash of the
// snapshot before it, or the anchor when it is the oldest.
func (db *DB) PrevHashOf(ctx context.Context, id int64) (string, error) {
	var h string
	err := db.r.QueryRowContext(ctx, "SELECT hash FROM snapshots WHERE id < ? ORDER BY id DESC LIMIT 1", id).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return readAnchor(ctx, db.r)
	}
	if err != nil {
		return "", fmt.Errorf("read link of snapshot %d: %w", id, err)
	}
	return h, nil
}

// ChainAnchor is the PrevHash the oldest retained snapshot carries: ""
// until a prune, then the hash of the newest pruned snapshot.
func (db *DB) ChainAnchor(ctx context.Context) (string, error) { return readAnchor(ctx, db.r) }

// ChainHead returns the newest snapshot's id and hash (0 and the anchor
// when there is none), for recording in an external log.
func (db *DB) ChainHead(ctx context.Context) (int64, string, error) {
	var id int64
	var h string
	err := db.r.QueryRowContext(ctx, "SELECT id, hash FROM snapshots ORDER BY id DESC LIMIT 1").Scan(&id, &h)
	if errors.Is(err, sql.ErrNoRows) {
		a, err := readAnchor(ctx, db.r)
		return 0, a, err
	}
	if err != nil {
		return 0, "", fmt.Errorf("read chain head: %w", err)
	}
	return id, h, nil
}

// SnapshotFiles returns the manifest of snapshot id, ordered by path
// (byte order).
func (db *DB) SnapshotFiles(ctx context.Context, id int64) ([]FileRecord, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT path, type, mode, size, mtime_ns, object, link
FROM snapshot_files WHERE snapshot = ? ORDER BY path`, id)
	if err != nil {
		return nil, fmt.Errorf("list files of snapshot %d: %w", id, err)
	}
	defer rows.Close()
	var out []FileRecord
	for rows.Next() {
		var f FileRecord
		if err := rows.Scan(&f.Path, &f.Type, &f.Mode, &f.Size, &f.MtimeNS, &f.Object, &f.Link); err != nil {
			return nil, fmt.Errorf("list files of snapshot %d: %w", id, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list files of snapshot %d: %w", id, err)
	}
	return out, nil
}

// DeleteSnapshotsThrough deletes snapshot id and every older one, moves
// the chain anchor to id's hash (so the chain stays verifiable) and drops
// stat-cache entries whose object no snapshot references any more. It
// returns how many snapshots were deleted.
func (db *DB) DeleteSnapshotsThrough(ctx context.Context, id int64) (int64, error) {
	var n int64
	err := db.write(ctx, fmt.Sprintf("delete snapshots through %d", id), func(tx *sql.Tx) error {
		var h string
		err := tx.QueryRowContext(ctx, "SELECT hash FROM snapshots WHERE id = ?", id).Scan(&h)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM snapshots WHERE id <= ?", id)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chronicle_meta (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, anchorKey, h); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM chronicle_cache WHERE object NOT IN
(SELECT object FROM snapshot_files WHERE object <> '')`)
		return err
	})
	return n, err
}

// ReferencedObjects is the set of object hashes some snapshot needs.
func (db *DB) ReferencedObjects(ctx context.Context) (map[string]bool, error) {
	rows, err := db.r.QueryContext(ctx, "SELECT DISTINCT object FROM snapshot_files WHERE object <> ''")
	if err != nil {
		return nil, fmt.Errorf("list referenced objects: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, fmt.Errorf("list referenced objects: %w", err)
		}
		out[o] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list referenced objects: %w", err)
	}
	return out, nil
}

// StatCache returns the cache entries at or under each of roots (paths
// relative to the workspace; "." is all of it), keyed by path.
func (db *DB) StatCache(ctx context.Context, roots []string) (map[string]StatEntry, error) {
	out := map[string]StatEntry{}
	for _, root := range roots {
		q := `SELECT path, dev, ino, size, mode, mtime_ns, ctime_ns, object FROM chronicle_cache
WHERE path = ?1 OR (path > ?1 || '/' AND path < ?1 || '0')`
		args := []any{root}
		if root == "." {
			q, args = "SELECT path, dev, ino, size, mode, mtime_ns, ctime_ns, object FROM chronicle_cache", nil
		}
		if err := db.readCache(ctx, q, args, out); err != nil {
			return nil, fmt.Errorf("read stat cache under %s: %w", root, err)
		}
	}
	return out, nil
}

func (db *DB) readCache(ctx context.Context, q string, args []any, out map[string]StatEntry) error {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e StatEntry
		var dev, ino int64
		if err := rows.Scan(&e.Path, &dev, &ino, &e.Size, &e.Mode, &e.MtimeNS, &e.CtimeNS, &e.Object); err != nil {
			return err
		}
		e.Dev, e.Ino = uint64(dev), uint64(ino) //nolint:gosec // bit pattern stored by upsertCache
		out[e.Path] = e
	}
	return rows.Err()
}
