//go:build linux

package sandbox

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// selfFDMin is the lowest descriptor number Self keeps its executable
// at: a child's inherited files are placed at 0, 1, 2, 3, … before it
// execs, and must not take the executable's place.
const selfFDMin = 200

var self struct {
	once sync.Once
	path string
	err  error
}

// Self returns a path that executes the binary this process was started
// from, whatever has been written since at the path it was started by:
// "/proc/self/fd/N" for a descriptor on /proc/self/exe opened the first
// time Self is called (the engine calls it when it starts, before any
// command runs). A child inherits the descriptor through fork and the
// kernel resolves the path before close-on-exec takes it away, so the
// wrapper and the agent are always this very file — a command that
// replaces the parallax on PATH, in ~/.local/bin or in the workspace,
// replaces nothing the engine runs.
func Self() (string, error) {
	self.once.Do(func() {
		fd, err := unix.Open("/proc/self/exe", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			self.err = fmt.Errorf("open own executable: %w", err)
			return
		}
		high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, selfFDMin)
		unix.Close(fd)
		if err != nil {
			self.err = fmt.Errorf("keep own executable open: %w", err)
			return
		}
		self.path = fmt.Sprintf("/proc/self/fd/%d", high)
	})
	return self.path, self.err
}
