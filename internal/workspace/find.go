package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoWorkspace is returned by Find when no directory at or above the
// start holds a workspace.
var ErrNoWorkspace = errors.New("no Parallax workspace")

// Find returns the nearest directory at or above one of the starts
// (tried in order, empty ones skipped) that holds a workspace: a
// .parallax directory with config.yaml or parallax.db in it. A .parallax
// directory with neither (~/.parallax holding only the user's
// policy.yaml) is not a workspace and the walk goes on above it. The
// error wraps ErrNoWorkspace and names the starts.
func Find(starts ...string) (string, error) {
	var tried []string
	for _, s := range starts {
		if s == "" {
			continue
		}
		if !filepath.IsAbs(s) {
			return "", fmt.Errorf("find workspace: %q is not an absolute path", s)
		}
		tried = append(tried, s)
		for d := filepath.Clean(s); ; d = filepath.Dir(d) {
			if isWorkspace(d) {
				return d, nil
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return "", fmt.Errorf("%w at or above %s", ErrNoWorkspace, strings.Join(tried, " or "))
}

func isWorkspace(dir string) bool {
	if !Initialised(dir) {
		return false
	}
	for _, f := range []string{ConfigPath(dir), DBPath(dir)} {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}
