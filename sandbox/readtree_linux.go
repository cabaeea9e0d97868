//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// maxDepth bounds the walk from / to the deepest denied directory.
const maxDepth = 64

// readRights are what "read everywhere" grants: read files, list
// directories, execute programs.
const readRights = rightReadFile | rightReadDir | rightExecute

// ruleSet collects one command's Landlock rules.
type ruleSet struct {
	cfg   landlock.Config
	deny  []string // cleaned and resolved denied directories
	rules []grant
}

func (w *ruleSet) add(g grant) { w.rules = append(w.rules, g) }

// denied reports whether p is a denied directory or lies beneath one.
func (w *ruleSet) denied(p string) bool {
	for _, d := range w.deny {
		if within(p, d) {
			return true
		}
	}
	return false
}

// holdsDenied reports whether a denied directory lies beneath p.
func (w *ruleSet) holdsDenied(p string) bool {
	for _, d := range w.deny {
		if within(d, p) {
			return true
		}
	}
	return false
}

// grantWrite gives full access to path. A required path must exist; an
// optional one (a cache) is skipped when missing. A writable path inside
// a denied directory contradicts the spec and is an error; a writable
// tree holding a denied directory (the workspace's .parallax/) is
// granted around it, like reads.
func (w *ruleSet) grantWrite(p string, required bool) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writable path %s: %w", p, err)
	}
	if w.denied(real) {
		return fmt.Errorf("writable path %s lies in a read-denied directory", p)
	}
	if !w.holdsDenied(real) {
		w.add(grant{path: real, rights: w.cfg.HandledAccessFS, optional: !required})
		return nil
	}
	return w.grantExcept(real, w.cfg.HandledAccessFS, 0)
}

// grantExcept grants rights on p, unless p is denied; when a denied
// directory lies beneath p, it grants each entry of p instead,
// recursively. Landlock is an allow-list whose rules cover whole trees,
// so this is how "everything but these directories" is said. The cost:
// a directory on the way to a denied one can be walked through and its
// other entries used, but it cannot be listed, nor entries created in it.
// Symlinks met on the way are skipped, never followed: a link's target
// is granted (or not) under its own name, and a link inside a writable
// tree must not carry write access out of it.
func (w *ruleSet) grantExcept(p string, rights landlock.AccessFSSet, depth int) error {
	if w.denied(p) {
		return nil
	}
	if !w.holdsDenied(p) {
		w.add(grant{path: p, rights: rights, optional: true})
		return nil
	}
	if depth >= maxDepth {
		return fmt.Errorf("read-denied directory under %s is deeper than %d levels", p, maxDepth)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return fmt.Errorf("list %s to grant around a read-denied directory: %w", p, err)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		if err := w.grantExcept(filepath.Join(p, e.Name()), rights, depth+1); err != nil {
			return err
		}
		if len(w.rules) > maxRules {
			return fmt.Errorf("sandbox spec needs more than %d landlock rules", maxRules)
		}
	}
	return nil
}
