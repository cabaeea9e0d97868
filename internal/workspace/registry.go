package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// registryFile lists, one absolute path a line, the workspaces of this
// user (~/.parallax/workspaces): every command's sandbox hides the
// .parallax of each of them, not only its own.
const registryFile = "workspaces"

// maxRegistryBytes bounds what Registered reads.
const maxRegistryBytes = 1 << 20

// RegistryPath is the per-user list of workspaces.
func RegistryPath(home string) string { return filepath.Join(home, ".parallax", registryFile) }

// Register adds root to the user's list of workspaces, once. The list
// only ever grows; a workspace that is gone is skipped where it is read.
func Register(home, root string) error {
	if !filepath.IsAbs(home) || !filepath.IsAbs(root) {
		return fmt.Errorf("register workspace %s: home and root must be absolute", root)
	}
	if strings.ContainsAny(root, "\n\x00") {
		return fmt.Errorf("register workspace %q: the path holds a newline", root)
	}
	roots, err := Registered(home)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if r == filepath.Clean(root) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(RegistryPath(home)), 0o700); err != nil {
		return fmt.Errorf("register workspace %s: %w", root, err)
	}
	f, err := os.OpenFile(RegistryPath(home), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("register workspace %s: %w", root, err)
	}
	_, werr := f.WriteString(filepath.Clean(root) + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("register workspace %s: %w", root, err)
	}
	return nil
}

// Registered lists the user's workspaces (absolute, cleaned, in the
// order they were registered). A missing list is empty.
func Registered(home string) ([]string, error) {
	b, err := os.ReadFile(RegistryPath(home))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the workspace list: %w", err)
	}
	if len(b) > maxRegistryBytes {
		return nil, fmt.Errorf("read the workspace list %s: %d bytes, limit %d", RegistryPath(home), len(b), maxRegistryBytes)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxRegistryBytes)
	for sc.Scan() {
		if p := strings.TrimSpace(sc.Text()); filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out, sc.Err()
}
