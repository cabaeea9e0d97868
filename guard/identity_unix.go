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

// lstatID is the identity, link count and whether p is a regular file,
// asked of the kernel directly (no FileInfo is built: this runs for every
// existing path the guard judges). ok is false when p cannot be stat'ed.
func lstatID(p string) (id FileID, nlink uint64, regular, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return FileID{}, 0, false, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, uint64(st.Nlink), //nolint:unconvert // widths differ by OS
		st.Mode&syscall.S_IFMT == syscall.S_IFREG, true
}
