package chronicle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parallax/parallax/internal/store"
)

// item is one path found by scan.
type item struct {
	rel    string
	typ    Type
	info   fs.FileInfo // nil when absent
	link   string
	object string
	size   int64
}

// Snapshot records the current state of paths (absolute; files,
// directories taken recursively, symlinks as links, or paths that do not
// exist yet) before an action changes them, and returns the new
// snapshot. It fails, recording nothing, when a path lies outside the
// workspace or in .parallax, holds a special file, or the snapshot would
// exceed the configured bounds; the caller must then not run the action.
func (c *Chronicle) Snapshot(ctx context.Context, paths []string, reason, session string) (Snapshot, error) {
	unlock, err := lockFile(c.lockPath(), true)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	defer unlock()
	return c.snapshotLocked(ctx, paths, reason, session)
}

func (c *Chronicle) lockPath() string { return filepath.Join(c.dir, "lock") }

func (c *Chronicle) snapshotLocked(ctx context.Context, paths []string, reason, session string) (Snapshot, error) {
	tops, err := c.tops(paths)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	root, err := os.OpenRoot(c.root)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	defer root.Close()
	items, err := c.scan(ctx, root, tops)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	cp, err := c.newCapture(ctx, root, tops)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	if err := cp.all(ctx, items); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	if !c.opts.NoSync && len(cp.newPaths) > 0 {
		if err := syncObjects(c.objects.dir, cp.newPaths); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot: %w", err)
		}
	}
	files := records(items)
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	rec := store.SnapshotRecord{
		CreatedAt: c.opts.Now(), Reason: reason, Session: session, Paths: tops,
		Files: int64(len(files)), Bytes: bytes, NewBytes: cp.newBytes, ManifestHash: manifestHash(files),
	}
	rec, err = c.db.AddSnapshot(ctx, rec, files, cp.newCache, func(r *store.SnapshotRecord) (string, error) {
		return recordHash(r), nil
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: %w", err)
	}
	s := snapshotFromRecord(rec)
	s.Stats = cp.stats
	return s, nil
}

// tops resolves the requested paths to workspace-relative ones, sorted,
// without duplicates and without paths inside another requested one.
func (c *Chronicle) tops(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("no paths given")
	}
	var rels []string
	for _, p := range paths {
		r, err := c.rel(p)
		if err != nil {
			return nil, err
		}
		rels = append(rels, r)
	}
	slices.Sort(rels)
	rels = slices.Compact(rels)
	out := rels[:0]
	for _, r := range rels {
		if !slices.ContainsFunc(out, func(q string) bool { return within(r, q) }) {
			out = append(out, r)
		}
	}
	return out, nil
}

// within reports whether p is q or lies under q.
func within(p, q string) bool {
	return q == "." || p == q || strings.HasPrefix(p, q+"/")
}

// scan lists every path the snapshot records, with its metadata, and
// enforces the bounds before any content is read.
func (c *Chronicle) scan(ctx context.Context, root *os.Root, tops []string) ([]item, error) {
	var items []item
	var bytes int64
	add := func(it item) error {
		if len(items) >= c.opts.MaxFiles {
			return fmt.Errorf("%w: more than %d entries (at %s)", ErrTooLarge, c.opts.MaxFiles, it.rel)
		}
		if it.typ == TypeFile {
			bytes += it.info.Size()
			if bytes > c.opts.MaxBytes {
				return fmt.Errorf("%w: more than %d bytes (at %s)", ErrTooLarge, c.opts.MaxBytes, it.rel)
			}
		}
		items = append(items, it)
		return ctx.Err()
	}
	for _, top := range tops {
		info, err := root.Lstat(top)
		if errors.Is(err, fs.ErrNotExist) {
			if err := add(item{rel: top, typ: TypeAbsent}); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("inspect %s: %w", top, err)
		}
		if !info.IsDir() {
			it, err := newItem(root, top, info)
			if err == nil {
				err = add(it)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if err := c.walk(root, top, add); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.rel, b.rel) })
	return items, nil
}

// walk adds a directory and everything under it, without following
// symlinks and skipping the workspace's .parallax.
func (c *Chronicle) walk(root *os.Root, top string, add func(item) error) error {
	base := filepath.Join(c.root, filepath.FromSlash(top))
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", top, err)
		}
		r, err := filepath.Rel(c.root, p)
		if err != nil {
			return fmt.Errorf("walk %s: %w", top, err)
		}
		r = filepath.ToSlash(r)
		if r == sealedDir {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("inspect %s: %w", r, err)
		}
		it, err := newItem(root, r, info)
		if err != nil {
			return err
		}
		return add(it)
	})
}

// newItem classifies one existing path.
func newItem(root *os.Root, rel string, info fs.FileInfo) (item, error) {
	it := item{rel: rel, info: info}
	switch m := info.Mode(); {
	case m.IsRegular():
		it.typ = TypeFile
	case m.IsDir():
		it.typ = TypeDir
	case m&fs.ModeSymlink != 0:
		it.typ = TypeSymlink
		target, err := root.Readlink(rel)
		if err != nil {
			return item{}, fmt.Errorf("read link %s: %w", rel, err)
		}
		it.link = target
	default:
		return item{}, fmt.Errorf("%w: %s is a %s", ErrUnsupported, rel, m.Type())
	}
	return it, nil
}

// records turns scanned items into manifest entries (sorted by path).
func records(items []item) []store.FileRecord {
	out := make([]store.FileRecord, len(items))
	for i, it := range items {
		f := store.FileRecord{Path: it.rel, Type: string(it.typ)}
		switch it.typ {
		case TypeFile:
			f.Mode, f.Size, f.MtimeNS, f.Object = unixMode(it.info.Mode()), it.size, it.info.ModTime().UnixNano(), it.object
		case TypeDir:
			f.Mode, f.MtimeNS = unixMode(it.info.Mode()), it.info.ModTime().UnixNano()
		case TypeSymlink:
			f.Mode, f.Link = unixMode(it.info.Mode()), it.link
		case TypeAbsent:
		}
		out[i] = f
	}
	return out
}
