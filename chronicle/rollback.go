package chronicle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/parallax/parallax/internal/store"
)

// RollbackResult reports a rollback.
type RollbackResult struct {
	ID       int64    // the snapshot restored
	Undo     Snapshot // the state just before the rollback: roll back to Undo.ID to undo it
	Restored int      // files, directories and links written
	Removed  int      // paths removed (absent in the snapshot, or new inside a snapshotted directory)
	// Written and Gone name them (workspace-relative, slash-separated):
	// the files and links written back, and the topmost of each tree
	// removed; at most MaxNamed each (the counts above are whole).
	Written, Gone []string
}

// MaxNamed bounds the paths a RollbackResult names.
const MaxNamed = 256

// Rollback restores the paths of snapshot id exactly as they were:
// content, modes and modification times, symlinks, deleted files and
// directories recreated, paths that did not exist removed, and whatever
// appeared inside a snapshotted directory since removed (.parallax
// excepted).
//
// Order: the record is checked against its hashes; the current state of
// the same paths is snapshotted first (Undo: roll back to it to undo the
// rollback); every file that differs from the snapshot is copied out of
// the object store into a staging file and re-hashed, so a corrupt or
// missing object aborts here, naming the path, with the workspace
// untouched; only then is each differing path replaced atomically (temp
// file + rename). Paths identical to the snapshot (same type, mode,
// mtime and content hash) are left alone. A failure while applying leaves
// earlier paths restored and names the Undo snapshot.
//
// The undo snapshot is the rollback's own, not the agent's: it is
// labelled with session UndoSession, whatever session took snapshot id.
func (c *Chronicle) Rollback(ctx context.Context, id int64) (RollbackResult, error) {
	unlock, err := lockFile(c.lockPath(), true)
	if err != nil {
		return RollbackResult{}, fmt.Errorf("rollback to #%d: %w", id, err)
	}
	defer unlock()
	res, err := c.rollbackLocked(ctx, id)
	if err != nil {
		return res, fmt.Errorf("rollback to #%d: %w", id, err)
	}
	return res, nil
}

// UndoSession labels the snapshot a rollback takes before it restores: a
// rollback is a human's act (parallax chronicle rollback), never the
// session of the agent whose snapshot is restored.
const UndoSession = "human:rollback"

func (c *Chronicle) rollbackLocked(ctx context.Context, id int64) (RollbackResult, error) {
	rec, files, err := c.load(ctx, id)
	if err != nil {
		return RollbackResult{}, err
	}
	root, err := os.OpenRoot(c.root)
	if err != nil {
		return RollbackResult{}, err
	}
	defer root.Close()
	for _, top := range rec.Paths {
		if err := checkParents(root, top); err != nil {
			return RollbackResult{}, err
		}
	}
	abs := make([]string, len(rec.Paths))
	for i, p := range rec.Paths {
		abs[i] = filepath.Join(c.root, filepath.FromSlash(p))
	}
	undo, err := c.snapshotLocked(ctx, abs, "before rollback to #"+strconv.FormatInt(id, 10), UndoSession)
	if err != nil {
		return RollbackResult{}, fmt.Errorf("snapshot current state: %w", err)
	}
	cur, err := c.db.SnapshotFiles(ctx, undo.ID)
	if err != nil {
		return RollbackResult{}, err
	}
	a := newApplier(c, root, files, cur)
	stage, err := os.MkdirTemp(c.objects.tmp, "rollback-*")
	if err != nil {
		return RollbackResult{}, err
	}
	defer os.RemoveAll(stage)
	if a.staged, err = c.stage(ctx, stage, a.changedFiles()); err != nil {
		return RollbackResult{}, err
	}
	res := RollbackResult{ID: id, Undo: undo}
	if err := a.run(rec.Paths); err != nil {
		return res, fmt.Errorf("%w (partly applied; rollback %d returns to the state before)", err, undo.ID)
	}
	res.Restored, res.Removed, res.Written, res.Gone = a.restored, a.removed, a.written, a.gone
	return res, nil
}

// checkParents refuses to restore below a parent that is no longer a
// directory (for instance replaced by a symlink): writing through it
// would land outside the snapshotted tree.
func checkParents(root *os.Root, rel string) error {
	if rel == "." {
		return nil
	}
	dir := path.Dir(rel)
	var prefix string
	for _, part := range splitPath(dir) {
		prefix = path.Join(prefix, part)
		info, err := root.Lstat(prefix)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // recreated, with everything below it
		}
		if err != nil {
			return fmt.Errorf("inspect %s: %w", prefix, err)
		}
		if !info.IsDir() {
			return fmt.Errorf("parent %s of %s is a %s now, not a directory: refusing to restore through it", prefix, rel, typeName(info.Mode()))
		}
	}
	return nil
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	var out []string
	for p != "." {
		out = append(out, path.Base(p))
		p = path.Dir(p)
	}
	slices.Reverse(out)
	return out
}

func typeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	default:
		return m.Type().String()
	}
}

// stage copies every file's object into stage, verifying its hash, with
// the recorded mode and mtime; it returns the staged file per path.
func (c *Chronicle) stage(ctx context.Context, stage string, files []store.FileRecord) (map[string]string, error) {
	staged := map[string]string{}
	for i, f := range files {
		if f.Type != string(TypeFile) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := filepath.Join(stage, strconv.Itoa(i))
		if err := c.stageOne(name, f); err != nil {
			return nil, fmt.Errorf("restore %s: %w", f.Path, err)
		}
		staged[f.Path] = name
	}
	return staged, nil
}

func (c *Chronicle) stageOne(name string, f store.FileRecord) error {
	out, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = c.objects.copyVerified(f.Object, out)
	if err == nil {
		err = out.Chmod(entryFromRecord(f).Mode)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	mt := time.Unix(0, f.MtimeNS)
	return os.Chtimes(name, mt, mt)
}
