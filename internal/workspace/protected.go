package workspace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parallax/parallax/internal/atomicfile"
)

// protectedFile lists, one absolute path a line, more files the gate
// protects against writes and deletes like the agent configurations it
// knows (guard.WithProtected): Claude Code settings files the hook was
// installed into outside the well-known places (install --settings FILE;
// uninstall takes FILE out again once no Parallax entry is left in it).
// It lives in the sealed .parallax, so the agent can neither read nor
// shorten it.
const protectedFile = "protected-paths"

// ProtectedPath is the file of extra protected paths.
func ProtectedPath(root string) string { return filepath.Join(StateDir(root), protectedFile) }

// LoadProtected reads the extra protected paths. A missing file is none;
// a line that is not a clean absolute path (blank lines and "#" comments
// aside) fails the load with the file and the line.
func LoadProtected(root string) ([]string, error) {
	path := ProtectedPath(root)
	b, err := os.ReadFile(path) //nolint:gosec // the workspace's own state
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) || filepath.Clean(line) != line || line == "/" {
			return nil, fmt.Errorf("%s:%d: %q is not a clean absolute file path", path, n, line)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// AddProtected adds an absolute path to the extra protected paths unless
// it is there already; it reports whether the file changed. The file is
// replaced atomically (mode 0600).
func AddProtected(root, path string) (bool, error) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || path == "/" {
		return false, fmt.Errorf("protect %q: not a clean absolute file path", path)
	}
	list, err := LoadProtected(root)
	if err != nil {
		return false, err
	}
	if slices.Contains(list, path) {
		return false, nil
	}
	if err := writeProtected(root, append(list, path)); err != nil {
		return false, err
	}
	return true, nil
}

// RemoveProtected takes a path out of the extra protected paths (uninstall
// --settings FILE once no hook entry is left in FILE); it reports whether
// the file changed. The guard's own tables (the well-known settings files)
// are not in this file and keep protecting their paths.
func RemoveProtected(root, path string) (bool, error) {
	list, err := LoadProtected(root)
	if err != nil {
		return false, err
	}
	kept := slices.DeleteFunc(slices.Clone(list), func(p string) bool { return p == path })
	if len(kept) == len(list) {
		return false, nil
	}
	if err := writeProtected(root, kept); err != nil {
		return false, err
	}
	return true, nil
}

// writeProtected replaces the file of extra protected paths atomically
// (mode 0600).
func writeProtected(root string, list []string) error {
	var b bytes.Buffer
	b.WriteString("# Files the gate protects like the agent configurations it knows (parallax hook claude-code install --settings).\n")
	for _, p := range list {
		b.WriteString(p + "\n")
	}
	return atomicfile.Write(ProtectedPath(root), b.Bytes(), 0o600)
}
