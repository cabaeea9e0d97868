package claudecode

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

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/chronicle"
	"github.com/parallax/parallax/internal/workspace"
	"github.com/parallax/parallax/shell"
)

// Reason codes of the hook (audit rules and detail codes). They are a
// public contract, like the gate's.
const (
	RuleBadInput        = "hook_bad_input"
	RuleUnknownInput    = "hook_unknown_input"
	RuleUnknownTool     = "hook_unknown_tool"
	RuleHostInternal    = "hook_host_internal"
	RuleGateError       = "hook_gate_error"
	RuleSnapshotFailed  = "chronicle_snapshot_failed"
	CodeOutside         = "outside_workspace"
	CodeSealed          = "sealed_state_dir"
	CodeSnapshotTaken   = "claude_code_pre_tool_use"
	CodeSnapshotFailure = "snapshot_failed"
)

// Target is a path a tool call will write or delete, as Chronicle must
// see it before the call runs.
type Target = shell.PathUse

// Targets lists what the call will change: the file of a file tool, the
// written and deleted paths of a Bash command (shell analysis, in its
// cwd). Reads are not targets.
func (m *Mapped) Targets(home string) []Target {
	if m.Command == "" {
		out := make([]Target, len(m.Files))
		for i, f := range m.Files {
			out[i] = Target{Path: f, Access: action.AccessWrite}
		}
		return out
	}
	eff := shell.Analyze(m.Command, shell.Options{Cwd: m.Cwd, Home: home})
	var out []Target
	for _, u := range eff.Paths {
		if u.Access&(action.AccessWrite|action.AccessDelete) != 0 {
			out = append(out, u)
		}
	}
	return out
}

// skip is a target Chronicle cannot take, and why.
type skip struct{ path, code string }

// plan turns targets into the paths to snapshot under root: a literal
// path as it is; a glob expanded to what it matches now (the literal
// pattern when nothing matches, so a file created under that name is
// removed by rollback; its literal leading directory when the pattern
// does not parse); a recursive selection as its literal root. Paths
// outside the workspace (after resolving symlinks in their parents) or in
// .parallax are skipped.
func plan(root string, targets []Target) (paths []string, skipped []skip, err error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("resolve workspace %s: %w", root, err)
	}
	var cands []string
	for _, t := range targets {
		cands = append(cands, expand(t)...)
	}
	for _, p := range cands {
		if code := placeOf(root, real, p); code != "" {
			skipped = append(skipped, skip{p, code})
			continue
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
		// A symlink is kept as a link; a write through it changes its
		// target, which Chronicle cannot keep when it lies outside.
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if t, err := filepath.EvalSymlinks(p); err != nil || placeOf(root, real, t) != "" {
				skipped = append(skipped, skip{orDangling(t, p), CodeOutside})
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
func expand(t Target) []string {
	if !t.Glob {
		return []string{t.Path}
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

// snapshotter takes the Chronicle snapshot of one allowed call and audits
// what it did and skipped.
type snapshotter struct {
	ws    *workspace.Workspace
	opts  chronicle.Options
	event audit.Event // session, action type and hash of the call
}

// take snapshots paths; skipped ones are audited. It returns the snapshot
// id (0 when there was nothing to take) or an error: the call must then
// not run.
func (s *snapshotter) take(ctx context.Context, reason string, paths []string, skipped []skip) (int64, error) {
	for _, sk := range skipped {
		e := s.event
		e.Type = audit.ChronicleSnapshotFailed
		e.Detail = audit.Detail{Code: sk.code, Path: sk.path,
			Message: "not snapshotted: Chronicle only keeps the workspace (outside it, rollback cannot undo this change)"}
		if _, err := s.ws.Audit.Append(ctx, e); err != nil {
			return 0, fmt.Errorf("audit a skipped snapshot path: %w", err)
		}
	}
	if len(paths) == 0 {
		return 0, nil
	}
	c, err := chronicle.New(s.ws.Root, s.ws.DB, s.opts)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	snap, err := c.Snapshot(ctx, paths, reason, s.event.Session)
	if err != nil {
		return 0, err
	}
	e := s.event
	e.Type = audit.ChronicleSnapshot
	e.Detail = audit.Detail{Code: CodeSnapshotTaken, Ref: strconv.FormatInt(snap.ID, 10), Count: snap.Files}
	if _, err := s.ws.Audit.Append(ctx, e); err != nil {
		return 0, fmt.Errorf("audit snapshot %d: %w", snap.ID, err)
	}
	return snap.ID, nil
}
