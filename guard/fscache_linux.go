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
	_, err := syscall.InotifyAddWatch(w.fd, dir, dirEvents)
	return err == nil
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
