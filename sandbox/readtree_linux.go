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
	rules []landlock.Rule
}

func (w *ruleSet) add(r landlock.Rule) { w.rules = append(w.rules, r) }

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
// optional one (a cache) is skipped when missing. A writable tree may
// neither lie in nor contain a denied directory: the two contradict.
func (w *ruleSet) grantWrite(p string, required bool) error {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writable path %s: %w", p, err)
	}
	if w.denied(real) || w.holdsDenied(real) {
		return fmt.Errorf("writable path %s overlaps a read-denied directory", p)
	}
	st, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("writable path %s: %w", p, err)
	}
	w.add(pathRule(w.cfg, w.cfg.HandledAccessFS, real, st.IsDir()))
	return nil
}

// grantReadExcept grants read access to p, unless p is denied; when a
// denied directory lies beneath p, it grants each entry of p instead,
// recursively. Landlock is an allow-list whose rules cover whole trees,
// so this is how "everything but these directories" is said. The cost:
// the directories on the way to a denied one can be walked through but
// not listed.
func (w *ruleSet) grantReadExcept(p string, depth int) error {
	if w.denied(p) {
		return nil
	}
	if !w.holdsDenied(p) {
		st, err := os.Stat(p)
		if err != nil {
			return nil // vanished or unreadable to us: grant nothing
		}
		w.add(pathRule(w.cfg, readRights, p, st.IsDir()))
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
		child := filepath.Join(p, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			// A rule follows the link, so judge where it leads. A target
			// around a denied directory is skipped: the walk from / reaches
			// it under its real name, and skipping it ends link loops.
			real, err := filepath.EvalSymlinks(child)
			if err != nil || w.holdsDenied(real) {
				continue
			}
			child = real
		}
		if err := w.grantReadExcept(child, depth+1); err != nil {
			return err
		}
		if len(w.rules) > maxRules {
			return fmt.Errorf("sandbox spec needs more than %d landlock rules", maxRules)
		}
	}
	return nil
}
