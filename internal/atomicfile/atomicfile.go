// Package atomicfile replaces a file's content all at once: a reader (or
// a crash) sees the old content or the new one, never a part. It is the
// one writer for the state and configuration files Parallax rewrites.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data. The data goes to a temporary file in the
// same directory, which takes the mode of the file it replaces (perm for
// a new file), is synced, and is renamed over path; the directory is
// synced after. A symlink at path is replaced, not written through (the
// caller resolves it first if it means the target). The directory is
// created (0700) when missing. On error nothing is left behind and path
// is unchanged.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	mode := perm
	if st, serr := os.Lstat(path); serr == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Chmod(mode), tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil { //nolint:gosec // the directory just written to
		_ = d.Sync() // the rename is done; a failed directory sync only weakens durability
		_ = d.Close()
	}
	return nil
}
