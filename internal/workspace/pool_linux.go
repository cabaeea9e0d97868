package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// statID is a file's device and inode, and with content its size and
// times. A link is not followed: what Open would open must be the file.
func statID(path string, content bool) (fileID, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, fmt.Errorf("stat %s: no inode", filepath.Base(path))
	}
	id := fileID{dev: uint64(st.Dev), ino: st.Ino} //nolint:unconvert // Dev is not uint64 everywhere
	if content {
		id.size, id.mtime = st.Size, fi.ModTime().UnixNano()
		id.ctime = st.Ctim.Nano()
	}
	return id, nil
}
