package hookd

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/parallax/parallax/internal/workspace"
)

// DefaultWatch is how often a daemon checks that what it serves is still
// there.
const DefaultWatch = 2 * time.Second

// Reasons a daemon stops on its own because what it serves is gone.
const (
	stopWorkspaceGone = "workspace_gone" // .parallax removed or replaced
	stopSocketGone    = "socket_gone"    // the socket file removed or replaced
	stopBinaryGone    = "binary_gone"    // the executable removed or replaced
	stopKeyChanged    = "key_changed"    // the key file removed or replaced
)

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: st.Ino} //nolint:unconvert // Dev is not uint64 everywhere
	}
	return fileID{}
}

// watch is what a server was started with and checks on every tick with
// a few stat calls. The inodes compared cannot be reused while the
// server runs: it holds .parallax open, the bound socket holds its file
// and the running executable its own.
type watch struct {
	stateDir string   // the workspace's .parallax; "" when not watched
	dir      *os.File // .parallax, held open
	dirID    fileID
	socket   string
	sockID   fileID
	exe      Identity // Path "" when not watched
	key      Identity // the key file's, as exe's (size and times too); Path "" when not watched
}

// newWatch records the identities of the workspace's .parallax (root ""
// watches none) and of the socket just bound, with those of the
// executable and of the key file, as the server read them.
func newWatch(root, socket string, exe, key Identity) (*watch, error) {
	w := &watch{socket: socket, exe: exe, key: key}
	fi, err := os.Lstat(socket)
	if err != nil {
		return nil, fmt.Errorf("watch the socket: %w", err)
	}
	w.sockID = idOf(fi)
	if root == "" {
		return w, nil
	}
	w.stateDir = workspace.StateDir(root)
	if w.dir, err = os.Open(w.stateDir); err != nil {
		return nil, fmt.Errorf("watch the workspace: %w", err)
	}
	if fi, err = w.dir.Stat(); err != nil || !fi.IsDir() {
		return nil, errors.Join(fmt.Errorf("watch the workspace: %s is not a directory (%w)", w.stateDir, err), w.dir.Close())
	}
	w.dirID = idOf(fi)
	return w, nil
}

// gone is why the server must stop ("" while everything is in place):
// .parallax, the socket, the executable or the key file is missing or is
// another file than the one the server started with. Any error stating
// them counts as gone: a daemon that stops for nothing costs one
// in-process decision.
func (w *watch) gone() string {
	if w.stateDir != "" {
		if fi, err := os.Stat(w.stateDir); err != nil || idOf(fi) != w.dirID {
			return stopWorkspaceGone
		}
	}
	if !w.ownsSocket() {
		return stopSocketGone
	}
	if w.exe.Path != "" {
		if id, err := FileIdentity(w.exe.Path); err != nil || id != w.exe {
			return stopBinaryGone
		}
	}
	if w.key.Path != "" {
		if fi, err := os.Lstat(w.key.Path); err != nil || infoIdentity(w.key.Path, fi) != w.key {
			return stopKeyChanged
		}
	}
	return ""
}

// ownsSocket reports whether the socket path still names the socket the
// server bound.
func (w *watch) ownsSocket() bool {
	fi, err := os.Lstat(w.socket)
	return err == nil && fi.Mode()&os.ModeSocket != 0 && idOf(fi) == w.sockID
}

// removeSocket removes the socket path when it is still the server's: a
// socket another daemon bound there since is left alone. (Between the
// check and the removal, only a daemon that does not hold the same lock
// file, that is of a replaced .parallax, could bind it.)
func (w *watch) removeSocket() error {
	if !w.ownsSocket() {
		return nil
	}
	if err := os.Remove(w.socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the socket: %w", err)
	}
	return nil
}

func (w *watch) close() error {
	if w.dir == nil {
		return nil
	}
	return w.dir.Close()
}

// ticker is the watch's clock: the injected ticks (tests) or a ticker of
// Watch (DefaultWatch).
func (s *Server) ticker() (<-chan time.Time, func()) {
	if s.ticks != nil {
		return s.ticks, func() {}
	}
	every := s.Watch
	if every <= 0 {
		every = DefaultWatch
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}
