package action

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Env is what normalisation needs to know about the caller.
type Env struct {
	Home string // what "~" means; empty refuses "~"
}

// ErrRelativePath is returned for a path that is not absolute.
var ErrRelativePath = errors.New("path must be absolute")

// Normalize expands "~", requires absolute paths, refuses control
// characters and escaped or look-alike spellings (CheckPathEncoding), and cleans "." and ".." in every path field, in place.
func Normalize(a *Action, env Env) error {
	for _, pf := range a.Payload.PathFields() {
		p, err := NormalizePath(*pf.Path, env)
		if err != nil {
			return fmt.Errorf("%s: payload field %q: %w", a.Type, pf.Name, err)
		}
		*pf.Path = p
	}
	return nil
}

// NormalizePath applies the rules of Normalize to one path.
func NormalizePath(p string, env Env) (string, error) {
	if err := CheckPathChars(p); err != nil {
		return "", err
	}
	if err := CheckPathEncoding(p); err != nil {
		return "", err
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if env.Home == "" || !filepath.IsAbs(env.Home) {
			return "", errors.New("path starts with ~ but HOME is not set to an absolute path")
		}
		p = env.Home + p[1:]
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%w: %q", ErrRelativePath, p)
	}
	return filepath.Clean(p), nil
}

// CheckPathChars refuses empty paths and paths with NUL or control characters.
func CheckPathChars(p string) error {
	if p == "" {
		return errors.New("path is empty")
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("path contains control character 0x%02x at byte %d", c, i)
		}
	}
	return nil
}
