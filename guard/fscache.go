package guard

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"
	"syscall"
)

// The guard reads the filesystem on every decision: a component of a
// path may be a link into a protected area, a glob may match a planted
// link. Those reads are system calls, which cost more than the rest of a
// routine decision. fsCache keeps their answers across decisions, for
// exactly as long as the kernel reports no change to the directories
// that hold them: before each decision (Memo) it asks the change watcher
// whether anything changed since the last one and, if so, forgets
// everything. A change that completed before a decision began is always
// seen by it (the kernel queues the event before the changing call
// returns); a change racing with a decision is a race with or without
// the cache.
//
// Only directories on local filesystems are watched (fscache_linux.go):
// /proc, /sys, network and FUSE filesystems are read afresh every time.
//
// What the watcher does not report: mounts. A mount over a directory
// changes what lies below it without a change event; mounting needs
// privileges the gate never grants without review (the analyser marks
// mount as a privilege change), and the guard never looked through mount
// points differently anyway.

// changeWatcher reports changes to the entries of watched directories.
type changeWatcher interface {
	// watch starts reporting changes to dir's entries (and to dir
	// itself being removed or moved). false: not watched, do not cache.
	watch(dir string) bool
	// changed reports whether anything changed since the last call; it
	// is true as well when the watcher cannot tell (lost events, errors).
	changed() bool
	// reset forgets every watch and every pending change.
	reset() bool
}

// Bounds of the shared cache; beyond them reads go through uncached.
const (
	maxCachedStats = 16384
	maxCachedDirs  = 1024
	maxWatches     = 512 // inotify watches are a per-user budget other programs share
)

type cachedStat struct {
	fi  fs.FileInfo
	err error
}

type cachedLink struct {
	target string
	err    error
}

// fsCache is the shared, change-validated memory of filesystem reads.
type fsCache struct {
	mu      sync.Mutex
	w       changeWatcher // nil: caching is off
	stats   map[string]cachedStat
	links   map[string]cachedLink
	dirs    map[string][]fs.DirEntry
	watched map[string]bool // true: watched; false: the watch failed (missing)
	// gen counts the flushes: a read started before one must not be
	// stored after it (its directory may not be watched any more).
	gen uint64
	// afterRead, in tests, runs between a read and its storing.
	afterRead func()
}

func newFSCache(w changeWatcher) *fsCache {
	c := &fsCache{w: w}
	c.clear()
	return c
}

func (c *fsCache) clear() {
	c.stats = map[string]cachedStat{}
	c.links = map[string]cachedLink{}
	c.dirs = map[string][]fs.DirEntry{}
	c.watched = map[string]bool{}
}

// begin starts a decision: whatever changed since the last one drops
// the whole cache.
func (c *fsCache) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil || len(c.watched) == 0 {
		return
	}
	if c.w.changed() {
		c.clear()
		c.gen++
		if !c.w.reset() {
			c.w = nil // the watcher broke: no cache from now on
		}
	}
}

// watchLocked makes sure dir is watched; c.mu is held.
func (c *fsCache) watchLocked(dir string) bool {
	if c.w == nil {
		return false
	}
	if ok, tried := c.watched[dir]; tried {
		return ok // a failed watch is not retried until the next change
	}
	if len(c.watched) >= maxWatches {
		return false
	}
	ok := c.w.watch(dir)
	c.watched[dir] = ok
	return ok
}

// cacheable reports whether an error is a stable answer about the path
// (it does not exist, or a component is not a directory) rather than a
// passing condition.
func cacheable(err error) bool {
	return err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (c *fsCache) Lstat(name string) (fs.FileInfo, error) {
	c.mu.Lock()
	if s, ok := c.stats[name]; ok {
		c.mu.Unlock()
		return s.fi, s.err
	}
	// Watch before reading: a change after the read is then reported.
	watched := name != "/" && len(c.stats) < maxCachedStats && c.watchLocked(path.Dir(name))
	gen := c.gen
	c.mu.Unlock()
	fi, err := os.Lstat(name)
	if c.afterRead != nil {
		c.afterRead()
	}
	if watched && cacheable(err) {
		c.mu.Lock()
		if c.gen == gen {
			c.stats[name] = cachedStat{fi, err}
		}
		c.mu.Unlock()
	}
	return fi, err
}

func (c *fsCache) Readlink(name string) (string, error) {
	c.mu.Lock()
	if l, ok := c.links[name]; ok {
		c.mu.Unlock()
		return l.target, l.err
	}
	watched := name != "/" && len(c.links) < maxCachedStats && c.watchLocked(path.Dir(name))
	gen := c.gen
	c.mu.Unlock()
	t, err := os.Readlink(name)
	if c.afterRead != nil {
		c.afterRead()
	}
	if watched && err == nil {
		c.mu.Lock()
		if c.gen == gen {
			c.links[name] = cachedLink{t, nil}
		}
		c.mu.Unlock()
	}
	return t, err
}

// ReadDir lists name. Callers must not modify the slice: it is shared.
func (c *fsCache) ReadDir(name string) ([]fs.DirEntry, error) {
	c.mu.Lock()
	if ents, ok := c.dirs[name]; ok {
		c.mu.Unlock()
		return ents, nil
	}
	watched := len(c.dirs) < maxCachedDirs && c.watchLocked(name)
	gen := c.gen
	c.mu.Unlock()
	ents, err := os.ReadDir(name)
	if c.afterRead != nil {
		c.afterRead()
	}
	if watched && err == nil && len(ents) <= maxExpand {
		c.mu.Lock()
		if c.gen == gen {
			c.dirs[name] = ents
		}
		c.mu.Unlock()
	}
	return ents, err
}

var (
	_ FS        = (*fsCache)(nil)
	_ dirReader = (*fsCache)(nil)
)

// sharedCache is the process's one cache (paths are process-wide), or
// nil where the system offers no change watcher.
var sharedCache = sync.OnceValue(func() *fsCache {
	w := newChangeWatcher()
	if w == nil {
		return nil
	}
	return newFSCache(w)
})

// shareReads says whether guards built from now on read through the
// shared cache (ShareFilesystemReads).
var shareReads atomic.Bool

// ShareFilesystemReads makes guards built from now on share their
// filesystem reads across decisions, through the change-validated cache.
// It pays off in a process that makes many decisions (a server, a proxy,
// a benchmark); a process that makes one should not call it: closing the
// kernel's change watcher at exit waits for a grace period of about 10 ms.
// PARALLAX_GUARD_FSCACHE=off keeps it off.
func ShareFilesystemReads() {
	if os.Getenv("PARALLAX_GUARD_FSCACHE") != "off" {
		shareReads.Store(true)
	}
}

// defaultFS is the real filesystem, through the shared cache when reads
// are shared and the system can watch for changes.
func defaultFS() FS {
	if shareReads.Load() {
		if c := sharedCache(); c != nil {
			return c
		}
	}
	return osFS{}
}
