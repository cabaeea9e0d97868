package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/dlp"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/judge"
)

// ErrNotInitialised is returned by Open for a directory without .parallax.
var ErrNotInitialised = errors.New("not a Parallax workspace (no .parallax directory; run parallax init)")

// StateDir is the workspace's own directory, sealed from the agent.
func StateDir(root string) string { return filepath.Join(root, ".parallax") }

// DBPath is the workspace database.
func DBPath(root string) string { return filepath.Join(StateDir(root), "parallax.db") }

// Initialised reports whether root holds a .parallax directory.
func Initialised(root string) bool {
	st, err := os.Stat(StateDir(root))
	return err == nil && st.IsDir()
}

// Workspace is an open workspace's state.
type Workspace struct {
	Root   string
	Config Config
	DB     *store.DB
	Audit  *audit.Log
	// Redactor masks what DLP finds in text (the audit chain's own): the
	// sessions store masks messages with it before they are kept.
	Redactor audit.Redactor
	// protected are the extra paths the gate protects (LoadProtected).
	protected []string
	judge     *judge.Judge // tier 2, when the config names a shield model
	super     *judge.Judge // the supervisor of sensitive data access (same model)
	// release, on a workspace from a Pool, hands it back instead of closing.
	release func() error
}

// Open opens the database and the audit chain of the workspace at root
// (absolute). With a Pool in ctx (WithPool), a workspace kept open there
// is reused when nothing a fresh open would read has changed.
func Open(ctx context.Context, root string) (*Workspace, error) {
	if p, ok := ctx.Value(poolKey{}).(*Pool); ok && p != nil && filepath.IsAbs(root) && Initialised(root) {
		return p.open(ctx, root)
	}
	return openFresh(ctx, root)
}

func openFresh(ctx context.Context, root string) (*Workspace, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("open workspace %s: path must be absolute", root)
	}
	if !Initialised(root) {
		return nil, fmt.Errorf("open workspace %s: %w", root, ErrNotInitialised)
	}
	cfg, err := LoadConfig(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	prot, err := LoadProtected(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	db, err := store.Open(ctx, DBPath(root))
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	red, err := redactor()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open workspace %s: %w", root, err), db.Close())
	}
	log, err := audit.Open(audit.DefaultPath(root), audit.Options{Redactor: red})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open workspace %s: %w", root, err), db.Close())
	}
	w := &Workspace{Root: root, Config: cfg, DB: db, Audit: log, Redactor: red, protected: prot}
	_ = reserveJournal(TaintJournalPath(root)) // room for a taint when the disk fills up; best effort
	if w.judge, err = newJudge(w); err == nil && w.judge != nil {
		w.super, err = newJudgeProfile(w, judge.SupervisorProfile())
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open workspace %s: %w", root, err), log.Close(), db.Close())
	}
	return w, nil
}

// Close closes the audit chain (flushing it) and the database; a
// workspace from a Pool goes back to it.
func (w *Workspace) Close() error {
	if w.release != nil {
		return w.release()
	}
	return w.closeFiles()
}

func (w *Workspace) closeFiles() error {
	return errors.Join(w.Audit.Close(), w.DB.Close())
}

// redactor masks what DLP finds in text bound for the audit chain.
func redactor() (audit.Redactor, error) {
	d, err := dlp.New()
	if err != nil {
		return nil, fmt.Errorf("dlp redactor: %w", err)
	}
	return audit.RedactFunc(func(s string) string {
		out, _ := d.Redact(s)
		return out
	}), nil
}
