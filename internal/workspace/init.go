package workspace

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parallax/parallax/audit"
	"github.com/parallax/parallax/internal/store"
	"github.com/parallax/parallax/policy"
)

// ErrExists is returned by Init for a directory that already holds
// .parallax when InitOptions.Force is not set.
var ErrExists = errors.New("workspace already initialised (--force moves the old .parallax into the new one's backups/)")

// InitCode is the audit detail code of the entry Init writes.
const InitCode = "workspace_initialised"

// InitOptions configure Init.
type InitOptions struct {
	// Policy is the base policy preset written to config.yaml: default,
	// permissive or strict ("" means default).
	Policy string
	// Force replaces an existing workspace. Its .parallax directory is
	// moved, whole, into the new one as backups/parallax-<UTC time>:
	// nothing is deleted, and the old history stays sealed from the agent.
	Force bool
	// Home is the user's home, whose list of workspaces (RegistryPath)
	// the new workspace joins; "" leaves the list alone.
	Home string
	// Rand is the source of the canary, API and client tokens (nil:
	// crypto/rand).
	Rand io.Reader
	// Now stamps the audit entry, the database and the backup name (nil:
	// time.Now).
	Now func() time.Time

	// failAt lets tests fail Init after a named step.
	failAt func(step string) error
}

// InitResult says what Init created.
type InitResult struct {
	Root   string      // the workspace, absolute and clean
	Policy string      // the preset written to config.yaml
	Backup string      // where the previous .parallax went; "" when there was none
	Entry  audit.Entry // the first entry of the new audit chain
	// Unregistered says why the workspace is not in the user's list of
	// workspaces (RegistryPath), whose state every command's sandbox
	// hides; "" when it is. The engine registers it again when it starts.
	Unregistered string
}

func (o InitOptions) withDefaults() (InitOptions, error) {
	if o.Policy == "" {
		o.Policy = "default"
	}
	if !policy.IsPreset(o.Policy) {
		return o, fmt.Errorf("policy %q: want a preset (%s)", o.Policy, strings.Join(policy.PresetNames(), ", "))
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.failAt == nil {
		o.failAt = func(string) error { return nil }
	}
	return o, nil
}

// Init creates the workspace state of root (absolute; created if
// missing): .parallax/ (0700) with config.yaml naming the preset,
// policy.yaml (no rules, a header on how to add them), canary.token,
// api.token and client.token (32 random bytes as hex, 0600), a .gitignore that keeps all
// but config.yaml and policy.yaml out of version control, the database
// with its schema,
// an audit chain whose first entry records the initialisation, and the
// chronicle/ and backups/ directories.
//
// Init is atomic: everything is built in root/.parallax-init-*/.parallax
// (a path the guard seals like every .parallax) and renamed into place in
// one step, so an error or a crash never leaves a half workspace. On
// error the staging directory is removed, unless it holds the previous
// workspace and moving that back failed: the error then says where it is.
// An existing .parallax is ErrExists unless opts.Force is set.
func Init(ctx context.Context, root string, opts InitOptions) (InitResult, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return InitResult{}, fmt.Errorf("init workspace %s: %w", root, err)
	}
	if !filepath.IsAbs(root) {
		return InitResult{}, fmt.Errorf("init workspace %s: path must be absolute", root)
	}
	root = filepath.Clean(root)
	if err := os.MkdirAll(root, 0o755); err != nil { //nolint:gosec // the project directory itself, not the sealed state
		return InitResult{}, fmt.Errorf("init workspace %s: %w", root, err)
	}
	old, err := exists(StateDir(root))
	if err != nil {
		return InitResult{}, fmt.Errorf("init workspace %s: %w", root, err)
	}
	if old && !opts.Force {
		return InitResult{}, fmt.Errorf("init workspace %s: %w", root, ErrExists)
	}
	outer, err := os.MkdirTemp(root, initTempGlob)
	if err != nil {
		return InitResult{}, fmt.Errorf("init workspace %s: create staging directory: %w", root, err)
	}
	b := &builder{root: root, outer: outer, stage: filepath.Join(outer, ".parallax"), opts: opts, old: old}
	res, err := b.run(ctx)
	if err != nil {
		return InitResult{}, errors.Join(fmt.Errorf("init workspace %s: %w", root, err), b.cleanup())
	}
	return res, nil
}

// exists reports whether p exists (as anything, a symlink included).
func exists(p string) (bool, error) {
	_, err := os.Lstat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("inspect %s: %w", p, err)
	}
}

// builder stages a new workspace and installs it.
type builder struct {
	root, outer, stage string
	opts               InitOptions
	old                bool   // root already holds .parallax
	backup             string // its name under backups/, when old
	moved              bool   // the old .parallax is inside the stage now
	entry              audit.Entry
}

// step is one stage of the build, run in order.
type step struct {
	name string
	run  func(ctx context.Context) error
}

func (b *builder) run(ctx context.Context) (InitResult, error) {
	if b.old {
		b.backup = backupPrefix + b.opts.Now().UTC().Format(backupStamp)
	}
	steps := []step{
		{"directories", b.dirs},
		{"config", b.config},
		{"policy", b.policy},
		{"tokens", b.tokens},
		{"gitignore", func(context.Context) error {
			return writeNew(filepath.Join(b.stage, gitignoreFile), []byte(gitignore))
		}},
		{"database", b.database},
		{"taint journal", func(context.Context) error { return reserveJournal(filepath.Join(b.stage, taintJournalFile)) }},
		{"audit", b.audit},
		{"sync", func(context.Context) error { return syncDir(b.stage) }},
		{"backup", b.moveOld},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return InitResult{}, fmt.Errorf("before %s: %w", s.name, err)
		}
		err := s.run(ctx)
		if err == nil {
			err = b.opts.failAt(s.name)
		}
		if err != nil {
			return InitResult{}, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if err := b.install(); err != nil {
		return InitResult{}, err
	}
	res := InitResult{Root: b.root, Policy: b.opts.Policy, Entry: b.entry}
	if b.opts.Home != "" {
		if err := Register(b.opts.Home, b.root); err != nil {
			res.Unregistered = err.Error()
		}
	}
	if b.old {
		res.Backup = filepath.Join(BackupsDir(b.root), b.backup)
	}
	return res, nil
}

func (b *builder) dirs(context.Context) error {
	for _, d := range []string{b.stage, filepath.Join(b.stage, chronicleDir), filepath.Join(b.stage, backupsDir)} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if err := os.Chmod(d, 0o700); err != nil { // whatever the umask
			return fmt.Errorf("chmod %s: %w", d, err)
		}
	}
	return nil
}

func (b *builder) config(context.Context) error {
	text := fmt.Sprintf("# Parallax workspace configuration (parallax init).\n"+
		"# policy: the base policy preset (default, permissive, strict) or a file\n"+
		"# relative to this directory; policy.yaml adds user rules on top.\n"+
		"version: 1\npolicy: %s\n", b.opts.Policy)
	return writeNew(filepath.Join(b.stage, "config.yaml"), []byte(text))
}

func (b *builder) policy(context.Context) error {
	return writeNew(filepath.Join(b.stage, policyFile), []byte(userPolicy))
}

func (b *builder) tokens(context.Context) error {
	for _, name := range []string{canaryFile, apiTokenFile, clientFile} {
		tok, err := newToken(b.opts.Rand)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := writeNew(filepath.Join(b.stage, name), []byte(tok)); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) database(ctx context.Context) error {
	db, err := store.Open(ctx, filepath.Join(b.stage, filepath.Base(DBPath(b.root))), store.WithClock(b.opts.Now))
	if err != nil {
		return err
	}
	return db.Close()
}

// audit starts the chain with a ConfigChanged entry saying what was
// created, and, after --force, where the old state went and the anchor
// its chain ended with.
func (b *builder) audit(ctx context.Context) error {
	log, err := audit.Open(filepath.Join(b.stage, filepath.Base(audit.DefaultPath(b.root))), audit.Options{Clock: b.opts.Now})
	if err != nil {
		return err
	}
	ev := audit.Event{Type: audit.ConfigChanged, Reason: "workspace initialised with policy preset " + b.opts.Policy,
		Detail: audit.Detail{Code: InitCode, Message: "policy " + b.opts.Policy}}
	if b.old {
		ev.Detail.Path = filepath.Join(".parallax", backupsDir, b.backup)
		ev.Detail.Message += "; the previous .parallax was moved to " + ev.Detail.Path
		if a, err := audit.ReadHead(audit.DefaultPath(b.root)); err == nil && a.Seq > 0 {
			ev.Detail.Ref = a.String() // the old chain's last entry
		}
	}
	b.entry, err = log.Append(ctx, ev)
	return errors.Join(err, log.Close())
}

// moveOld moves the existing .parallax into the stage's backups/.
func (b *builder) moveOld(context.Context) error {
	if !b.old {
		return nil
	}
	dst := filepath.Join(b.stage, backupsDir, b.backup)
	if err := os.Rename(StateDir(b.root), dst); err != nil {
		return fmt.Errorf("move %s aside: %w", StateDir(b.root), err)
	}
	b.moved = true
	return nil
}

// install renames the stage into place (Init's cleanup moves the old
// state back if this fails).
// This is the commit point: once the rename is done the workspace is
// complete, and a later error only concerns the empty staging directory
// or the durability of the rename.
func (b *builder) install() error {
	err := b.opts.failAt("install")
	if err == nil {
		err = renameNoReplace(b.stage, StateDir(b.root))
	}
	if errors.Is(err, fs.ErrExist) {
		// Another init won the race since the check at the start.
		return fmt.Errorf("install: %w (%w)", ErrExists, err)
	}
	if err != nil {
		return fmt.Errorf("install: rename %s to %s: %w", b.stage, StateDir(b.root), err)
	}
	b.moved = false // it is inside the installed workspace now
	if err := errors.Join(os.Remove(b.outer), syncDir(b.root)); err != nil {
		return fmt.Errorf("installed %s, but: %w", StateDir(b.root), err)
	}
	return nil
}

// restore moves the old .parallax back from the stage.
func (b *builder) restore() error {
	if !b.moved {
		return nil
	}
	src := filepath.Join(b.stage, backupsDir, b.backup)
	if err := renameNoReplace(src, StateDir(b.root)); err != nil {
		return fmt.Errorf("move the previous workspace back from %s: %w", src, err)
	}
	b.moved = false
	return nil
}

// cleanup runs after a failure: it moves the previous workspace back if
// it was moved into the stage, then removes the staging directory. If
// moving back fails, the stage is kept and the error says where the
// previous workspace is.
func (b *builder) cleanup() error {
	if err := b.restore(); err != nil {
		return fmt.Errorf("%w; the previous workspace state is in %s: move it back to %s by hand", err,
			filepath.Join(b.stage, backupsDir, b.backup), StateDir(b.root))
	}
	if _, err := os.Lstat(b.outer); errors.Is(err, fs.ErrNotExist) {
		return nil // installed; only the last sync failed
	}
	if err := os.RemoveAll(b.outer); err != nil {
		return fmt.Errorf("remove staging directory %s: %w", b.outer, err)
	}
	return nil
}

// writeNew creates a 0600 file that must not exist and makes it durable.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // inside the staging directory Init created
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir makes the entries of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir) //nolint:gosec // a directory Init created or was given
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = d.Sync()
	if err = errors.Join(err, d.Close()); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
