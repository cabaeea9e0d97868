package chronicle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/parallax/parallax/internal/store"
)

// Sentinel errors; wrapped errors name the path or snapshot involved.
var (
	// ErrNotFound: no snapshot with that id.
	ErrNotFound = store.ErrNotFound
	// ErrTooLarge: a snapshot would exceed Options.MaxFiles or MaxBytes.
	ErrTooLarge = errors.New("snapshot too large")
	// ErrOutside: a path resolves outside the workspace or into .parallax.
	ErrOutside = errors.New("path outside the snapshot tree")
	// ErrUnsupported: a path is neither file, directory nor symlink.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrTampered: the index or an object fails its hash.
	ErrTampered = errors.New("chronicle integrity check failed")
)

// Defaults for Options.
const (
	DefaultMaxFiles = 100_000
	DefaultMaxBytes = 2 << 30 // 2 GiB of file content per snapshot
)

// Options configures a Chronicle. The zero value is usable.
type Options struct {
	// Now stamps snapshots and measures ages for Prune (default: the
	// store's clock).
	Now func() time.Time
	// MaxFiles and MaxBytes bound one snapshot (entries, content bytes);
	// 0 means the default. Over the bound, Snapshot returns ErrTooLarge.
	MaxFiles int
	MaxBytes int64
	// NoSync skips flushing new objects to disk before the snapshot is
	// recorded. Only for tests and measurements.
	NoSync bool
	// NoClone disables the reflink attempt (to measure the copy path).
	NoClone bool
}

// Chronicle snapshots and restores paths of one workspace.
type Chronicle struct {
	root    string // workspace, absolute, symlinks resolved
	dir     string // root/.parallax/chronicle
	db      *store.DB
	ownDB   bool
	opts    Options
	objects *objectStore
	racy    time.Duration // stat data this close to the filesystem clock is not cached
	noCache bool          // measurements only: ignore the stat cache
}

// sealedDir is the workspace's private directory; never snapshotted or
// restored.
const sealedDir = ".parallax"

// Open opens the Chronicle of workspace, with its index in the workspace
// database (workspace/.parallax/parallax.db). Close releases the database.
func Open(ctx context.Context, workspace string, opts Options) (*Chronicle, error) {
	var sopts []store.Option
	if opts.Now != nil {
		sopts = append(sopts, store.WithClock(opts.Now))
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("open chronicle %s: %w", workspace, err)
	}
	db, err := store.Open(ctx, filepath.Join(abs, sealedDir, "parallax.db"), sopts...)
	if err != nil {
		return nil, fmt.Errorf("open chronicle %s: %w", workspace, err)
	}
	c, err := New(abs, db, opts)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	c.ownDB = true
	return c, nil
}

// New returns the Chronicle of workspace using an open store.
func New(workspace string, db *store.DB, opts Options) (*Chronicle, error) {
	if !filepath.IsAbs(workspace) {
		return nil, fmt.Errorf("open chronicle %s: workspace must be absolute", workspace)
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, fmt.Errorf("open chronicle %s: %w", workspace, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("open chronicle %s: not a directory", workspace)
	}
	if opts.Now == nil {
		opts.Now = db.Now
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	dir := filepath.Join(root, sealedDir, "chronicle")
	objs, err := newObjectStore(dir, !opts.NoClone)
	if err != nil {
		return nil, fmt.Errorf("open chronicle %s: %w", workspace, err)
	}
	return &Chronicle{root: root, dir: dir, db: db, opts: opts, objects: objs, racy: time.Second}, nil
}

// Close releases the database if Open opened it.
func (c *Chronicle) Close() error {
	if c.ownDB {
		return c.db.Close()
	}
	return nil
}

// Root is the workspace, symlinks resolved.
func (c *Chronicle) Root() string { return c.root }

// Type is what a path was when snapshotted.
type Type string

// Entry types.
const (
	TypeFile    Type = "file"
	TypeDir     Type = "dir"
	TypeSymlink Type = "symlink"
	TypeAbsent  Type = "absent" // did not exist: rollback removes it
)

// Entry is one path in a snapshot.
type Entry struct {
	Path    string // relative to the workspace, slash-separated; "." is the workspace
	Type    Type
	Mode    fs.FileMode // permission bits plus setuid, setgid, sticky
	Size    int64
	ModTime time.Time
	Object  string // SHA-256 of the content (files)
	Link    string // target (symlinks)
}

// Snapshot describes one snapshot.
type Snapshot struct {
	ID           int64
	CreatedAt    time.Time
	Reason       string
	Session      string
	Paths        []string // what was asked for, relative to the workspace
	Files        int64    // entries recorded
	Bytes        int64    // content bytes recorded
	NewBytes     int64    // bytes this snapshot added to the object store
	ManifestHash string
	PrevHash     string
	Hash         string
	Stats        Stats // how the content was captured (set by Snapshot only)
}

// Stats counts how a snapshot captured file content.
type Stats struct {
	CacheHits int   // unchanged files recognised by stat data, not read
	Hashed    int   // files read and hashed
	Reused    int   // hashed files whose object already existed
	Cloned    int   // new objects made by reflink (FICLONE)
	Copied    int   // new objects made by copying
	HashBytes int64 // bytes read to hash
}

func snapshotFromRecord(r store.SnapshotRecord) Snapshot {
	return Snapshot{
		ID: r.ID, CreatedAt: r.CreatedAt, Reason: r.Reason, Session: r.Session, Paths: r.Paths,
		Files: r.Files, Bytes: r.Bytes, NewBytes: r.NewBytes,
		ManifestHash: r.ManifestHash, PrevHash: r.PrevHash, Hash: r.Hash,
	}
}

// List returns every snapshot, oldest first.
func (c *Chronicle) List(ctx context.Context) ([]Snapshot, error) {
	recs, err := c.db.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Snapshot, len(recs))
	for i, r := range recs {
		out[i] = snapshotFromRecord(r)
	}
	return out, nil
}

// Get returns one snapshot and its entries, after checking the record
// against its hashes.
func (c *Chronicle) Get(ctx context.Context, id int64) (Snapshot, []Entry, error) {
	rec, files, err := c.load(ctx, id)
	if err != nil {
		return Snapshot{}, nil, err
	}
	entries := make([]Entry, len(files))
	for i, f := range files {
		entries[i] = entryFromRecord(f)
	}
	return snapshotFromRecord(rec), entries, nil
}

// load reads snapshot id and verifies its record hash, manifest hash and
// link to its predecessor.
func (c *Chronicle) load(ctx context.Context, id int64) (store.SnapshotRecord, []store.FileRecord, error) {
	rec, err := c.db.GetSnapshot(ctx, id)
	if err != nil {
		return store.SnapshotRecord{}, nil, fmt.Errorf("snapshot %d: %w", id, unwrapNotFound(err))
	}
	files, err := c.db.SnapshotFiles(ctx, id)
	if err != nil {
		return store.SnapshotRecord{}, nil, err
	}
	prev, err := c.db.PrevHashOf(ctx, id)
	if err != nil {
		return store.SnapshotRecord{}, nil, err
	}
	if err := checkRecord(rec, files, prev); err != nil {
		return store.SnapshotRecord{}, nil, fmt.Errorf("snapshot %d: %w", id, err)
	}
	return rec, files, nil
}

func unwrapNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

func entryFromRecord(f store.FileRecord) Entry {
	e := Entry{
		Path: f.Path, Type: Type(f.Type), Mode: fs.FileMode(f.Mode & 0o777), Size: f.Size,
		ModTime: time.Unix(0, f.MtimeNS).UTC(), Object: f.Object, Link: f.Link,
	}
	return e.withSpecial(f.Mode)
}

// withSpecial adds setuid, setgid and sticky from the stored Unix bits.
func (e Entry) withSpecial(unixMode uint32) Entry {
	if unixMode&0o4000 != 0 {
		e.Mode |= fs.ModeSetuid
	}
	if unixMode&0o2000 != 0 {
		e.Mode |= fs.ModeSetgid
	}
	if unixMode&0o1000 != 0 {
		e.Mode |= fs.ModeSticky
	}
	return e
}

// unixMode is the inverse of withSpecial.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// rel maps an absolute path to its workspace-relative form after
// resolving symlinks in its parent directories. The last element is not
// resolved (a symlink is recorded as a symlink). If the parent does not
// exist, the topmost missing ancestor is returned instead, so a rollback
// removes every directory the action created.
func (c *Chronicle) rel(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("snapshot path %s: not absolute", p)
	}
	p = filepath.Clean(p)
	if p == c.root {
		return ".", nil
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dir == p || dir == "/" {
			return "", fmt.Errorf("snapshot path %s: %w", p, ErrOutside)
		}
		return c.rel(dir)
	case err != nil:
		return "", fmt.Errorf("snapshot path %s: resolve parent: %w", p, err)
	}
	r, err := filepath.Rel(c.root, filepath.Join(real, base))
	if err != nil || !validRel(filepath.ToSlash(r)) {
		return "", fmt.Errorf("snapshot path %s: %w (workspace %s, %s excluded)", p, ErrOutside, c.root, sealedDir)
	}
	return filepath.ToSlash(r), nil
}

// Head returns the newest snapshot's id and hash, for recording in an
// external log (the audit chain): truncation of the newest snapshots is
// visible only against such a record.
func (c *Chronicle) Head(ctx context.Context) (int64, string, error) {
	return c.db.ChainHead(ctx)
}
