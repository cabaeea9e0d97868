package workspace

import (
	"context"
	"errors"
	"io/fs"
	"sync"

	"github.com/parallax/parallax/audit"
)

// Pool keeps workspaces open across Opens in one long-running process
// (the hook daemon), so that a decision does not pay for opening the
// database and the audit chain. Open finds a pool in its context
// (WithPool). What a fresh Open would read differently is checked on
// every Open: the identity of .parallax, the database file and the audit
// chain (device and inode: replaced or moved files are reopened), and of
// config.yaml (also size, modification and change time: an edited config
// is read again), and of protected-paths the same way (a settings file
// recorded by hook install is protected at once). Nothing else is kept: taint and labels are read from the
// database by every decision, and the audit chain re-reads its tail under
// its lock before every append, as it does for several processes.
// Workspaces with a judge are not kept (the judge remembers answers in
// memory, which a fresh process would not).
type Pool struct {
	mu sync.Mutex
	m  map[string]*pooled
}

type pooled struct {
	ws    *Workspace
	id    stateID
	users int
	stale bool // replaced: close when the last user is done
}

// stateID is what decides whether a kept workspace is still what Open
// would open.
type stateID struct {
	dir, db, log fileID
	config       fileID
	protected    fileID // zero while .parallax/protected-paths does not exist
}

type fileID struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{m: map[string]*pooled{}} }

type poolKey struct{}

// WithPool returns ctx with p: Open then keeps and reuses workspaces in p.
func WithPool(ctx context.Context, p *Pool) context.Context {
	return context.WithValue(ctx, poolKey{}, p)
}

// Close closes every kept workspace that is not in use.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for root, e := range p.m {
		delete(p.m, root)
		if e.users == 0 {
			errs = append(errs, e.ws.closeFiles())
		} else {
			e.stale = true
		}
	}
	return errors.Join(errs...)
}

// open returns the kept workspace at root when nothing it depends on
// changed, else opens (and keeps) a new one.
func (p *Pool) open(ctx context.Context, root string) (*Workspace, error) {
	id, err := readStateID(root)
	if err != nil {
		return openFresh(ctx, root) // let the fresh open name the problem
	}
	p.mu.Lock()
	if e := p.m[root]; e != nil {
		if e.id == id {
			e.users++
			p.mu.Unlock()
			return e.lease(p), nil
		}
		p.dropLocked(root, e)
	}
	p.mu.Unlock()
	w, err := openFresh(ctx, root)
	if err != nil || w.judge != nil {
		return w, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if old := p.m[root]; old != nil {
		p.dropLocked(root, old)
	}
	e := &pooled{ws: w, id: id, users: 1}
	p.m[root] = e
	return e.lease(p), nil
}

// dropLocked forgets e; it is closed now or when its last user is done.
func (p *Pool) dropLocked(root string, e *pooled) {
	delete(p.m, root)
	e.stale = true
	if e.users == 0 {
		_ = e.ws.closeFiles() // nothing is pending: every append returned before its decision did
	}
}

// lease is a Workspace sharing e's state; its Close hands it back.
func (e *pooled) lease(p *Pool) *Workspace {
	w := *e.ws
	var once sync.Once
	w.release = func() (err error) {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			e.users--
			if e.stale && e.users == 0 {
				err = e.ws.closeFiles()
			}
		})
		return err
	}
	return &w
}

func readStateID(root string) (stateID, error) {
	var id stateID
	var err error
	for _, f := range []struct {
		path              string
		dst               *fileID
		content, optional bool
	}{
		{StateDir(root), &id.dir, false, false},
		{DBPath(root), &id.db, false, false},
		{audit.DefaultPath(root), &id.log, false, false},
		{ConfigPath(root), &id.config, true, false},
		{ProtectedPath(root), &id.protected, true, true},
	} {
		*f.dst, err = statID(f.path, f.content)
		if f.optional && errors.Is(err, fs.ErrNotExist) {
			*f.dst, err = fileID{}, nil
		}
		if err != nil {
			return stateID{}, err
		}
	}
	return id, nil
}
