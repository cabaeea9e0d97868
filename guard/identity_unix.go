//go:build unix

package guard

import (
	"io/fs"
	"syscall"
)

// statID returns a file's identity and link count from its FileInfo.
func statID(fi fs.FileInfo) (id FileID, nlink uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st == nil {
		return FileID{}, 0, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, uint64(st.Nlink), true //nolint:unconvert // widths differ by OS
}
