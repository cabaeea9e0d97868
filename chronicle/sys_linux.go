package chronicle

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statExtra returns what fs.FileInfo lacks: device, inode and ctime.
func statExtra(fi fs.FileInfo) (dev, ino uint64, ctimeNS int64, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, fmt.Errorf("no stat data for %s", fi.Name())
	}
	return uint64(st.Dev), st.Ino, st.Ctim.Nano(), nil //nolint:unconvert // Dev is uint32 on some arches
}

// cloneFile makes dst share src's blocks (FICLONE): a copy-on-write
// copy that costs no data blocks on btrfs, XFS (reflink=1), bcachefs, …
// It fails (EOPNOTSUPP, EXDEV, EINVAL) elsewhere, e.g. on ext4 and tmpfs.
func cloneFile(dst, src *os.File) error {
	return unix.IoctlFileClone(int(dst.Fd()), int(src.Fd())) //nolint:gosec // fds fit an int
}

// syncObjects flushes the filesystem holding dir in one syncfs call,
// which covers every new object and directory entry at once.
func syncObjects(dir string, _ []string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync objects: %w", err)
	}
	defer d.Close()
	if err := unix.Syncfs(int(d.Fd())); err != nil { //nolint:gosec // fd fits an int
		return fmt.Errorf("sync objects: %w", err)
	}
	return nil
}
