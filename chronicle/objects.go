package chronicle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// objectStore keeps file contents by SHA-256 under dir/objects/ab/cdef…,
// read-only (0400). Equal contents are stored once, whatever their path.
type objectStore struct {
	dir   string // …/chronicle/objects
	tmp   string // …/chronicle/tmp (same filesystem, for atomic renames)
	clone bool   // try FICLONE before copying
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

func newObjectStore(chronicleDir string, clone bool) (*objectStore, error) {
	o := &objectStore{dir: filepath.Join(chronicleDir, "objects"), tmp: filepath.Join(chronicleDir, "tmp"), clone: clone}
	for _, d := range []string{o.dir, o.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	return o, nil
}

func (o *objectStore) path(h string) string { return filepath.Join(o.dir, h[:2], h[2:]) }

func (o *objectStore) has(h string) bool {
	st, err := os.Lstat(o.path(h))
	return err == nil && st.Mode().IsRegular()
}

// putResult says what put did.
type putResult struct {
	hash   string
	size   int64
	cloned bool
	reused bool   // the object already existed; nothing new stored
	path   string // the new object's file, when !reused
}

// put stores the content of src (read from offset 0). With cloning on, a
// reflink of src is made and hashed (the clone is a stable point-in-time
// copy); otherwise the content is copied and hashed in one pass.
func (o *objectStore) put(src *os.File) (res putResult, err error) {
	tmp, err := os.CreateTemp(o.tmp, "obj-*")
	if err != nil {
		return putResult{}, fmt.Errorf("store object: %w", err)
	}
	defer func() {
		if tmp != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	if o.clone && cloneFile(tmp, src) == nil {
		res.cloned = true
		res.size, err = copyBuf(h, tmp)
	} else {
		res.size, err = copyBuf(io.MultiWriter(tmp, h), src)
	}
	if err != nil {
		return putResult{}, fmt.Errorf("store object: %w", err)
	}
	res.hash = hex.EncodeToString(h.Sum(nil))
	final := o.path(res.hash)
	if o.has(res.hash) {
		res.reused = true
		return res, nil
	}
	if err := tmp.Chmod(0o400); err != nil {
		return putResult{}, fmt.Errorf("store object: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return putResult{}, fmt.Errorf("store object: %w", err)
	}
	name := tmp.Name()
	tmp = nil
	// link, not rename: it fails if a concurrent writer stored the same
	// content first, so reuse is counted exactly. The fan-out directory is
	// created on first use.
	err = os.Link(name, final)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.Mkdir(filepath.Dir(final), 0o700); err == nil || errors.Is(err, fs.ErrExist) {
			err = os.Link(name, final)
		}
	}
	_ = os.Remove(name)
	if errors.Is(err, fs.ErrExist) {
		res.reused = true
		return res, nil
	}
	if err != nil {
		return putResult{}, fmt.Errorf("store object: %w", err)
	}
	res.path = final
	return res, nil
}

// copyBuf copies with a pooled buffer; src's WriteTo is hidden so the
// buffer is really used.
func copyBuf(dst io.Writer, src io.Reader) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	return io.CopyBuffer(dst, struct{ io.Reader }{src}, *bp)
}

// errCorrupt marks an object whose content no longer matches its name.
var errCorrupt = errors.New("object content does not match its hash")

// copyVerified writes object h into dst (at its current offset, which
// must be 0 for a clone) and checks the hash of what was written.
func (o *objectStore) copyVerified(h string, dst *os.File) error {
	src, err := os.Open(o.path(h))
	if err != nil {
		return fmt.Errorf("object %s: %w", short(h), err)
	}
	defer src.Close()
	sum := sha256.New()
	if o.clone && cloneFile(dst, src) == nil {
		_, err = copyBuf(sum, dst)
	} else {
		_, err = copyBuf(io.MultiWriter(dst, sum), src)
	}
	if err != nil {
		return fmt.Errorf("object %s: %w", short(h), err)
	}
	return checkSum(h, sum)
}

// read returns the content of object h (at most limit bytes are
// accepted) after checking its hash.
func (o *objectStore) read(h string, limit int64) ([]byte, error) {
	f, err := os.Open(o.path(h))
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", short(h), err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", short(h), err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("object %s: larger than %d bytes", short(h), limit)
	}
	sum := sha256.New()
	sum.Write(b)
	if err := checkSum(h, sum); err != nil {
		return nil, err
	}
	return b, nil
}

// check re-hashes object h.
func (o *objectStore) check(h string) error {
	f, err := os.Open(o.path(h))
	if err != nil {
		return fmt.Errorf("object %s: %w", short(h), err)
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := copyBuf(sum, f); err != nil {
		return fmt.Errorf("object %s: %w", short(h), err)
	}
	return checkSum(h, sum)
}

func checkSum(h string, sum hash.Hash) error {
	if hex.EncodeToString(sum.Sum(nil)) != h {
		return fmt.Errorf("object %s: %w", short(h), errCorrupt)
	}
	return nil
}

// gc removes every object not in keep, and leftovers in tmp. The caller
// holds the exclusive lock, so no snapshot is writing objects meanwhile.
func (o *objectStore) gc(keep map[string]bool) (removed int, bytes int64, err error) {
	err = filepath.WalkDir(o.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(o.dir, p)
		if err != nil {
			return err
		}
		if keep[filepath.Dir(rel)+filepath.Base(rel)] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		removed++
		bytes += info.Size()
		return nil
	})
	if err != nil {
		return removed, bytes, fmt.Errorf("collect objects: %w", err)
	}
	left, err := os.ReadDir(o.tmp)
	if err != nil {
		return removed, bytes, fmt.Errorf("clean %s: %w", o.tmp, err)
	}
	for _, e := range left {
		if err := os.RemoveAll(filepath.Join(o.tmp, e.Name())); err != nil {
			return removed, bytes, fmt.Errorf("clean %s: %w", o.tmp, err)
		}
	}
	return removed, bytes, nil
}

// short abbreviates a hash for messages.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
