package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/guard"
	"github.com/parallax/parallax/verdict"
)

// ErrOutside: an export path outside the workspace, or one the gate's
// guard keeps from being written (.parallax, SOUL.md, skills/, agent hook
// and MCP configurations, ...).
var ErrOutside = errors.New("export path must lie inside the workspace, where the gate lets a file be written")

func (m *Manager) cmdExport(ctx context.Context, c call) (CommandResult, error) {
	if len(c.args) > 1 {
		return CommandResult{}, usageErr("/export [PATH]")
	}
	info, err := m.Get(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	if info.OTR {
		return CommandResult{}, errors.New("this session is off the record: nothing of it is written to disk (copy from the screen)")
	}
	name := "session-" + fileSafe(info.ID) + ".md"
	if len(c.args) == 1 {
		name = c.args[0]
	}
	msgs, err := m.History(ctx, c.session)
	if err != nil {
		return CommandResult{}, err
	}
	rel, err := m.exportPath(name)
	if err != nil {
		return CommandResult{}, err
	}
	if err := writeNew(m.opts.Workspace, rel, []byte(markdown(info, msgs))); err != nil {
		return CommandResult{}, err
	}
	return CommandResult{Text: fmt.Sprintf("exported %d messages to %s", len(msgs), filepath.Join(m.opts.Workspace, rel))}, nil
}

// fileSafe keeps the characters of id a file name can hold anywhere.
func fileSafe(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
}

// exportPath resolves name (relative to the workspace, or absolute) to a
// path relative to the workspace, after resolving symlinks in its
// directory; outside the workspace, or where the guard refuses a write
// (as it would the agent's), is ErrOutside.
func (m *Manager) exportPath(name string) (string, error) {
	root, err := filepath.EvalSymlinks(m.opts.Workspace)
	if err != nil {
		return "", fmt.Errorf("export: resolve the workspace: %w", err)
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.opts.Workspace, p)
	}
	p = filepath.Clean(p)
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("export to %q: the directory must exist: %w", name, err)
	}
	abs := filepath.Join(dir, filepath.Base(p))
	rel, err := filepath.Rel(root, abs)
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if err != nil || rel == "." || first == ".." {
		return "", fmt.Errorf("export to %q: %w", name, ErrOutside)
	}
	g := guard.New(root, m.opts.Doctor.Home)
	if f, ok := g.Check(abs, action.AccessWrite); ok && f.Decision != verdict.Allow {
		return "", fmt.Errorf("export to %q: %s: %w", name, f.Reason, ErrOutside)
	}
	return rel, nil
}

// writeNew creates rel under root through an os.Root (no symlink leads
// out), refusing an existing file.
func writeNew(root, rel string, data []byte) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("export: %s exists: give another path", rel)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Remove(rel)
		return fmt.Errorf("export: write %s: %w", rel, err)
	}
	return nil
}

// markdown renders a session: a heading with the title, then each
// message under its role and time.
func markdown(info Info, msgs []Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nSession `%s`, started %s UTC, %d messages.\n", orUntitled(info.Title), info.ID,
		info.Created.UTC().Format(time.DateTime), len(msgs))
	for _, msg := range msgs {
		fmt.Fprintf(&b, "\n## %s — %s UTC\n\n%s\n", msg.Role, msg.At.UTC().Format(time.DateTime), strings.TrimRight(msg.Text, "\n"))
	}
	return b.String()
}
