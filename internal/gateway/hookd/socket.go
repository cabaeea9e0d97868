package hookd

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/parallax/parallax/internal/workspace"
)

// maxSocketPath is the longest path sockaddr_un holds (108 bytes with
// the terminating NUL).
const maxSocketPath = 107

// socketName is the socket's name in the workspace's .parallax/.
const socketName = "hookd.sock"

// SocketPath is where the daemon of the workspace at root listens:
// root/.parallax/hookd.sock when that fits in sockaddr_un, else a name
// derived from a hash of root in the user's runtime directory. The
// directory must be the user's and closed to others (mode 0700); the
// runtime directory is created so when missing.
func SocketPath(root string) (string, error) {
	if p := filepath.Join(workspace.StateDir(root), socketName); len(p) <= maxSocketPath {
		if err := privateDir(workspace.StateDir(root)); err != nil {
			return "", err
		}
		return p, nil
	}
	dir := runtimeDir()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("socket directory: %w", err)
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	p := filepath.Join(dir, "hookd-"+hex.EncodeToString(sum[:12])+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("socket path %s is too long for a Unix socket", p)
	}
	return p, nil
}

// runtimeDir is $XDG_RUNTIME_DIR/parallax when that is set and absolute,
// else /tmp/parallax-UID.
func runtimeDir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		return filepath.Join(x, "parallax")
	}
	return filepath.Join(os.TempDir(), "parallax-"+strconv.Itoa(os.Getuid()))
}

// privateDir checks that dir is a directory (not a link), owned by this
// user and closed to everyone else.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("socket directory %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("socket directory %s is not owned by this user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("socket directory %s is open to other users (mode %04o, want 0700)", dir, fi.Mode().Perm())
	}
	return nil
}
