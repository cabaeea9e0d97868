// Package snapshot plans and takes the Chronicle snapshots a gateway
// (the Claude Code hook, the MCP proxy) takes before a call that changes
// files runs: which paths (globs expanded, recursive selections by their
// root), which are skipped (outside the workspace after resolving
// symlinks in their parents, or in the sealed .parallax), and the audit
// entries of both. A snapshot that cannot be taken is an error: the
// caller must refuse the call.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shell"
)

// Detail codes of skipped paths (a public contract, like reason codes).
const (
	CodeOutside = "outside_workspace"
	CodeSealed  = "sealed_state_dir"
)

// Target is a path a call will write or delete.
type Target = shell.PathUse

// Skip is a target Chronicle cannot take, and why (CodeOutside,
// CodeSealed).
type Skip struct{ Path, Code string }

// Plan turns targets into the paths to snapshot under root: a literal
// path as it is; a glob expanded to what it matches now (the literal
// pattern when nothing matches, so a file created under that name is
// removed by rollback; its literal leading directory when the pattern
// does not parse); a recursive selection as its literal root. Paths
// outside the workspace (after resolving symlinks in their parents) or in
// .parallax are skipped.
// prefix gives the literal leading directory of a glob (nil: its
// directory).
func Plan(root string, targets []Target, prefix func(string) string) (paths []string, skipped []Skip, err error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve workspace %s: %w", root, err)
	}
	var cands []string
	for _, t := range targets {
		cands = append(cands, expand(t, prefix)...)
	}
	for _, p := range cands {
		if code := placeOf(root, real, p); code != "" {
			skipped = append(skipped, Skip{p, code})
			continue
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
		// A symlink is kept as a link; a write through it changes its
		// target, which Chronicle cannot keep when it lies outside.
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if t, err := filepath.EvalSymlinks(p); err != nil || placeOf(root, real, t) != "" {
				skipped = append(skipped, Skip{orDangling(t, p), CodeOutside})
			}
		}
	}
	return paths, skipped, nil
}

// orDangling names the target of a link, or the link when it dangles.
func orDangling(target, link string) string {
	if target == "" {
		return link + " (dangling symlink)"
	}
	return target
}

// expand is the literal paths a target stands for.
func expand(t Target, prefix func(string) string) []string {
	if !t.Glob {
		return []string{t.Path}
	}
	literalPrefix := prefix
	if literalPrefix == nil {
		literalPrefix = filepath.Dir
	}
	if t.Recursive || strings.Contains(t.Path, "**") {
		return []string{literalPrefix(t.Path)}
	}
	matches, err := filepath.Glob(t.Path)
	switch {
	case err != nil:
		return []string{literalPrefix(t.Path)}
	case len(matches) == 0:
		return []string{t.Path}
	}
	return matches
}

// placeOf says whether p may be snapshotted: "" when it lies in the
// workspace, CodeOutside or CodeSealed otherwise.
func placeOf(root, real, p string) string {
	lex, ok := within(root, p)
	if !ok {
		if lex, ok = within(real, p); !ok {
			return CodeOutside
		}
	}
	if sealed(lex) {
		return CodeSealed
	}
	resolved, err := resolveParent(p)
	if err != nil {
		return CodeOutside
	}
	rel, ok := within(real, resolved)
	if !ok {
		return CodeOutside
	}
	if sealed(rel) {
		return CodeSealed
	}
	return ""
}

// within returns p relative to root when p is root or below it.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

func sealed(rel string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first == ".parallax"
}

// resolveParent resolves symlinks in the directories above p (the last
// element is kept as it is: Chronicle records a symlink as a link).
func resolveParent(p string) (string, error) {
	dir, rest := filepath.Dir(p), []string{filepath.Base(p)}
	for {
		r, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if dir == filepath.Dir(dir) {
			return "", err
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = filepath.Dir(dir)
	}
}

// Taker takes the Chronicle snapshot of one allowed call and audits
// what it did and skipped.
type Taker struct {
	WS    *workspace.Workspace
	Opts  chronicle.Options
	Event audit.Event // session, action type and hash of the call
	Code  string      // the detail code of the ChronicleSnapshot entry
}

// Take snapshots paths; skipped ones are audited. It returns the snapshot
// id (0 when there was nothing to take) or an error: the call must then
// not run.
func (s *Taker) Take(ctx context.Context, reason string, paths []string, skipped []Skip) (int64, error) {
	for _, sk := range skipped {
		e := s.Event
		e.Type = audit.ChronicleSnapshotFailed
		e.Detail = audit.Detail{Code: sk.Code, Path: sk.Path,
			Message: "not snapshotted: Chronicle only keeps the workspace (outside it, rollback cannot undo this change)"}
		if _, err := s.WS.Audit.Append(ctx, e); err != nil {
			return 0, fmt.Errorf("audit a skipped snapshot path: %w", err)
		}
	}
	if len(paths) == 0 {
		return 0, nil
	}
	c, err := chronicle.New(s.WS.Root, s.WS.DB, s.Opts)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	snap, err := c.Snapshot(ctx, paths, reason, s.Event.Session)
	if err != nil {
		return 0, err
	}
	e := s.Event
	e.Type = audit.ChronicleSnapshot
	e.Detail = audit.Detail{Code: s.Code, Ref: strconv.FormatInt(snap.ID, 10), Count: snap.Files}
	if _, err := s.WS.Audit.Append(ctx, e); err != nil {
		return 0, fmt.Errorf("audit snapshot %d: %w", snap.ID, err)
	}
	return snap.ID, nil
}
