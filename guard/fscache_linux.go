package guard

import (
	"errors"
	"syscall"
)

// inotifyWatcher reports directory changes through inotify.
type inotifyWatcher struct {
	fd  int
	buf [4096]byte
}

// dirEvents are the changes to a directory's entries that can change
// what a path below it resolves to, and the directory going away.
const dirEvents = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW

func newChangeWatcher() changeWatcher {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &inotifyWatcher{fd: fd}
}

func (w *inotifyWatcher) watch(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || !localFS[int64(st.Type)] {
		return false
	}
	_, err := syscall.InotifyAddWatch(w.fd, dir, dirEvents)
	return err == nil
}

// localFS are the filesystems whose every change passes through this
// kernel, so inotify reports it. Pseudo filesystems (/proc, /sys) change
// without events, and network or FUSE filesystems can be changed from
// elsewhere: their reads are never cached.
var localFS = map[int64]bool{
	0xEF53:     true, // ext2, ext3, ext4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs (and devtmpfs)
	0x794C7630: true, // overlayfs
	0x2FC12FC1: true, // zfs
	0xF2F52010: true, // f2fs
}

func (w *inotifyWatcher) changed() bool {
	for {
		n, err := syscall.Read(w.fd, w.buf[:])
		switch {
		case n > 0:
			return true
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return false
		}
		return true // an error we cannot read past: assume a change
	}
}

func (w *inotifyWatcher) reset() bool {
	syscall.Close(w.fd)
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		w.fd = -1
		return false
	}
	w.fd = fd
	return true
}

func (w *inotifyWatcher) close() { syscall.Close(w.fd) }
