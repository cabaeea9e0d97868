package chronicle

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/parallax/parallax/internal/store"
)

// applier writes a verified, staged snapshot back into the workspace.
// It compares the target manifest with the manifest of the current state
// (the Undo snapshot) and touches only what differs. Every operation goes
// through the workspace's os.Root, so nothing is written outside it even
// if a directory is swapped for a symlink midway.
type applier struct {
	c        *Chronicle
	root     *os.Root
	files    []store.FileRecord // target, sorted by path: parents first
	want     map[string]store.FileRecord
	cur      []store.FileRecord // current state, sorted by path
	have     map[string]store.FileRecord
	staged   map[string]string // path → staged file
	restored int
	removed  int
	written  []string // files and links written back (at most MaxNamed)
	gone     []string // removed (at most MaxNamed)
}

func newApplier(c *Chronicle, root *os.Root, files, cur []store.FileRecord) *applier {
	a := &applier{c: c, root: root, files: files, cur: cur,
		want: make(map[string]store.FileRecord, len(files)), have: make(map[string]store.FileRecord, len(cur))}
	for _, f := range files {
		a.want[f.Path] = f
	}
	for _, f := range cur {
		if f.Type != string(TypeAbsent) {
			a.have[f.Path] = f
		}
	}
	return a
}

// same reports whether the current entry already is the target.
func (a *applier) same(f store.FileRecord) bool {
	h, ok := a.have[f.Path]
	if f.Type == string(TypeAbsent) {
		return !ok
	}
	return ok && h.Type == f.Type && h.Mode == f.Mode && h.Object == f.Object && h.Link == f.Link &&
		(f.Type != string(TypeFile) || h.MtimeNS == f.MtimeNS)
}

// changedFiles are the file entries to restore.
func (a *applier) changedFiles() []store.FileRecord {
	var out []store.FileRecord
	for _, f := range a.files {
		if f.Type == string(TypeFile) && !a.same(f) {
			out = append(out, f)
		}
	}
	return out
}

func (a *applier) run(tops []string) error {
	if err := a.openDirs(); err != nil {
		return err
	}
	if err := a.removeStrays(); err != nil {
		return err
	}
	for _, top := range tops {
		if top == "." || a.want[top].Type == string(TypeAbsent) {
			continue
		}
		if err := a.root.MkdirAll(path.Dir(top), 0o755); err != nil {
			return fmt.Errorf("recreate parents of %s: %w", top, err)
		}
	}
	for i, f := range a.files {
		if a.same(f) || f.Type == string(TypeAbsent) {
			continue
		}
		if err := a.write(i, f); err != nil {
			return err
		}
		a.restored++
		if f.Type != string(TypeDir) && len(a.written) < MaxNamed {
			a.written = append(a.written, f.Path)
		}
	}
	return a.closeDirs()
}

// openDirs gives the owner write access to existing directories that
// will be restored (their recorded mode is set again by closeDirs).
func (a *applier) openDirs() error {
	for _, f := range a.files {
		h, ok := a.have[f.Path]
		if f.Type == string(TypeDir) && ok && h.Type == string(TypeDir) && h.Mode&0o700 != 0o700 {
			if err := a.root.Chmod(f.Path, os.FileMode(h.Mode&0o777|0o700)); err != nil {
				return fmt.Errorf("open up %s: %w", f.Path, err)
			}
		}
	}
	return nil
}

// removeStrays removes what exists now but must not: paths absent from
// the target, and paths whose type differs from the target's (a file
// where a directory was, …). Only the topmost of a removed tree is
// removed explicitly.
func (a *applier) removeStrays() error {
	var gone string
	for _, h := range a.cur {
		if gone != "" && within(h.Path, gone) {
			delete(a.have, h.Path)
			continue
		}
		if h.Type == string(TypeAbsent) {
			continue
		}
		f, ok := a.want[h.Path]
		if ok && f.Type == h.Type {
			continue
		}
		isDir := h.Type == string(TypeDir)
		if ok && f.Type != string(TypeAbsent) && !isDir && f.Type != string(TypeDir) {
			continue // file ↔ symlink: the rename in write replaces it
		}
		if err := removeTree(a.root, h.Path); err != nil {
			return fmt.Errorf("remove %s: %w", h.Path, err)
		}
		delete(a.have, h.Path)
		a.removed++
		if len(a.gone) < MaxNamed {
			a.gone = append(a.gone, h.Path)
		}
		gone = h.Path
	}
	return nil
}

// removeTree removes p and everything below it; directories without
// owner write permission are opened up first.
func removeTree(root *os.Root, p string) error {
	if err := root.RemoveAll(p); err == nil {
		return nil
	}
	_ = fs.WalkDir(root.FS(), p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = root.Chmod(q, 0o700)
		}
		return nil
	})
	return root.RemoveAll(p)
}

func (a *applier) write(i int, f store.FileRecord) error {
	switch Type(f.Type) {
	case TypeDir:
		if _, ok := a.have[f.Path]; ok && a.have[f.Path].Type == string(TypeDir) {
			return nil // mode and time are set by closeDirs
		}
		if err := a.root.Mkdir(f.Path, 0o700); err != nil {
			return fmt.Errorf("recreate %s: %w", f.Path, err)
		}
	case TypeFile:
		return a.placeFile(f)
	case TypeSymlink:
		tmp := path.Join(path.Dir(f.Path), ".chronicle-"+strconv.Itoa(i)+".tmp")
		_ = a.root.Remove(tmp)
		if err := a.root.Symlink(f.Link, tmp); err != nil {
			return fmt.Errorf("recreate link %s: %w", f.Path, err)
		}
		if err := a.root.Rename(tmp, f.Path); err != nil {
			_ = a.root.Remove(tmp)
			return fmt.Errorf("recreate link %s: %w", f.Path, err)
		}
	case TypeAbsent:
	}
	return nil
}

// closeDirs sets directory modes and times, deepest first: writing inside
// a directory changes its mtime, and a read-only mode would block it.
func (a *applier) closeDirs() error {
	for i := len(a.files) - 1; i >= 0; i-- {
		f := a.files[i]
		if f.Type != string(TypeDir) {
			continue
		}
		if err := a.root.Chmod(f.Path, entryFromRecord(f).Mode); err != nil {
			return fmt.Errorf("restore mode of %s: %w", f.Path, err)
		}
		mt := time.Unix(0, f.MtimeNS)
		if err := a.root.Chtimes(f.Path, mt, mt); err != nil {
			return fmt.Errorf("restore time of %s: %w", f.Path, err)
		}
	}
	return nil
}

// placeFile renames the staged file over the path (atomic). The staging
// area lives in the workspace's .parallax, normally on the same
// filesystem; across a mount point the file is copied next to its target
// first.
func (a *applier) placeFile(f store.FileRecord) error {
	staged, ok := a.staged[f.Path]
	if !ok {
		return fmt.Errorf("restore %s: not staged", f.Path)
	}
	from, err := filepath.Rel(a.c.root, staged)
	if err != nil {
		return fmt.Errorf("restore %s: %w", f.Path, err)
	}
	err = a.root.Rename(filepath.ToSlash(from), f.Path)
	if err != nil && isCrossDevice(err) {
		err = a.copyInto(staged, f)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", f.Path, err)
	}
	return nil
}

func (a *applier) copyInto(staged string, f store.FileRecord) error {
	src, err := os.Open(staged)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := path.Join(path.Dir(f.Path), ".chronicle-"+path.Base(f.Path)+".tmp")
	dst, err := a.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Chmod(entryFromRecord(f).Mode)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	mt := time.Unix(0, f.MtimeNS)
	if err == nil {
		err = a.root.Chtimes(tmp, mt, mt)
	}
	if err == nil {
		err = a.root.Rename(tmp, f.Path)
	}
	if err != nil {
		_ = a.root.Remove(tmp)
	}
	return err
}
