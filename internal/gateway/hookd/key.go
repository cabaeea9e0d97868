package hookd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// KeySize is the length of the install's key.
const KeySize = 32

// Key is the install's secret: the hook trusts a daemon only once it has
// proved, on the connection, that it holds the same key (handshake in
// auth.go). It never leaves the user's ~/.parallax and never travels on
// the socket.
type Key [KeySize]byte

// keyName is the key's name in ~/.parallax.
const keyName = "hookd.key"

// KeyPath is where the install's key lives: HOME/.parallax/hookd.key,
// never inside a workspace.
//
// What keeps it from the agent the hook guards: the guard seals
// ~/.parallax (guard/lists.go: the home entry "~/.parallax" and the
// ".parallax" component rule, level Sealed), so every tool call that
// would read, list, search, copy, link or move anything there is BLOCKed
// before any tier runs, whatever the policy says; the IFC table makes
// it Critical too (ifc/rules.go, agent_internals). What does not keep it:
// a process the gate ALLOWed (a build, a test, `make dev`) runs with the
// user's full rights, and hook mode has no kernel sandbox, so such a
// process can read the key (README: the hook daemon). The own agent's
// sandbox hides ~/.parallax from the kernel's side.
func KeyPath(home string) string { return filepath.Join(home, ".parallax", keyName) }

// LoadKey reads the key at KeyPath(home). HOME must be absolute, and the
// key a regular file (not a link) of exactly KeySize bytes, owned by
// this user and closed to everyone else (no group or other bits); in a
// directory of this user that others cannot write to. Anything else is
// an error, and no daemon is started or trusted.
func LoadKey(home string) (*Key, error) {
	if !filepath.IsAbs(home) {
		return nil, fmt.Errorf("hook daemon key: HOME %q is not absolute", home)
	}
	return LoadKeyFile(KeyPath(home))
}

// LoadKeyFile reads a key file with LoadKey's checks.
func LoadKeyFile(path string) (*Key, error) {
	k, _, err := loadKeyFile(path)
	return k, err
}

// loadKeyFile is LoadKeyFile that also returns the identity of the file
// it read (what the daemon's watch compares).
func loadKeyFile(path string) (*Key, Identity, error) {
	if err := keyDir(filepath.Dir(path)); err != nil {
		return nil, Identity{}, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, Identity{}, fmt.Errorf("hook daemon key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Identity{}, fmt.Errorf("hook daemon key: %w", err)
	}
	if err := keyFileOK(path, fi); err != nil {
		return nil, Identity{}, err
	}
	var k Key
	if _, err := io.ReadFull(f, k[:]); err != nil {
		return nil, Identity{}, fmt.Errorf("hook daemon key %s: %w", path, err)
	}
	return &k, infoIdentity(path, fi), nil
}

// keyFileOK checks the key file's type, owner, mode and size.
func keyFileOK(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("hook daemon key %s is not a regular file", path)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("hook daemon key %s is not owned by this user", path)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("hook daemon key %s is open to other users (mode %04o, want 0600)", path, fi.Mode().Perm())
	case fi.Size() != KeySize:
		return fmt.Errorf("hook daemon key %s holds %d bytes, want %d", path, fi.Size(), KeySize)
	}
	return nil
}

// keyDir checks that the key's directory is this user's and that no one
// else may write to it (replace the key).
func keyDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("hook daemon key: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("hook daemon key: %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("hook daemon key: %s is not owned by this user", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("hook daemon key: others may write to %s (mode %04o)", dir, fi.Mode().Perm())
	}
	return nil
}

// CreateKey makes sure KeyPath(home) holds a key LoadKey accepts: one
// that loads is kept (created is false); else KeySize bytes of rnd are
// written to a new 0600 file in ~/.parallax (created 0700 when missing),
// synced, and renamed over the path, so a daemon never reads half a key.
// A key replaced this way (too open, wrong size) makes the daemons of
// the old one exit (Server.Watch).
func CreateKey(home string, rnd io.Reader) (created bool, err error) {
	if !filepath.IsAbs(home) {
		return false, fmt.Errorf("hook daemon key: HOME %q is not absolute", home)
	}
	if _, err := LoadKey(home); err == nil {
		return false, nil
	}
	dir := filepath.Dir(KeyPath(home))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("hook daemon key: %w", err)
	}
	if err := keyDir(dir); err != nil {
		return false, err
	}
	var k Key
	if _, err := io.ReadFull(rnd, k[:]); err != nil {
		return false, fmt.Errorf("hook daemon key: random bytes: %w", err)
	}
	f, err := os.CreateTemp(dir, keyName+".*")
	if err != nil {
		return false, fmt.Errorf("hook daemon key: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(k[:])
	if err := errors.Join(werr, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		return false, errors.Join(fmt.Errorf("hook daemon key: %w", err), os.Remove(tmp))
	}
	if err := os.Rename(tmp, KeyPath(home)); err != nil {
		return false, errors.Join(fmt.Errorf("hook daemon key: %w", err), os.Remove(tmp))
	}
	if _, err := LoadKey(home); err != nil {
		return false, err
	}
	return true, nil
}
