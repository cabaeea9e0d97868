package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/verdict"
)

func newTestCache(t *testing.T) *fsCache {
	t.Helper()
	w := newChangeWatcher()
	if w == nil {
		t.Fatal("inotify is not available")
	}
	c := newFSCache(w)
	t.Cleanup(func() { c.w.(*inotifyWatcher).close() })
	return c
}

func mustDo(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func lstatType(t *testing.T, c *fsCache, p string) (fs.FileMode, error) {
	t.Helper()
	c.begin()
	fi, err := c.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// TestFSCacheSeesChanges: every change that could alter what a path
// resolves to is seen by the next decision.
func TestFSCacheSeesChanges(t *testing.T) {
	dir := t.TempDir()
	c := newTestCache(t)
	data := filepath.Join(dir, "data")
	mustDo(t, os.Mkdir(data, 0o700))

	if typ, err := lstatType(t, c, data); err != nil || typ != fs.ModeDir {
		t.Fatalf("data: %v %v, want a directory", typ, err)
	}
	if _, ok := c.stats[data]; !ok {
		t.Fatalf("data was not cached")
	}
	// Swapped for a link: a directory that was plain is a link now.
	mustDo(t, os.Rename(data, filepath.Join(dir, "old")), os.Symlink("/etc", data))
	if typ, err := lstatType(t, c, data); err != nil || typ != fs.ModeSymlink {
		t.Errorf("after the swap data is %v %v, want a link", typ, err)
	}

	// Missing, then created.
	later := filepath.Join(dir, "later")
	if _, err := lstatType(t, c, later); !os.IsNotExist(err) {
		t.Fatalf("later: %v, want not-exist", err)
	}
	mustDo(t, os.Symlink("/root", later))
	if typ, err := lstatType(t, c, later); err != nil || typ != fs.ModeSymlink {
		t.Errorf("after creation later is %v %v, want a link", typ, err)
	}

	// A directory above the cached path replaced wholesale.
	a := filepath.Join(dir, "a")
	mustDo(t, os.MkdirAll(filepath.Join(a, "b"), 0o700))
	if typ, err := lstatType(t, c, filepath.Join(a, "b")); err != nil || typ != fs.ModeDir {
		t.Fatalf("a/b: %v %v", typ, err)
	}
	lstatType(t, c, a)
	mustDo(t, os.Rename(a, filepath.Join(dir, "a2")), os.Mkdir(a, 0o700), os.Symlink("/etc", filepath.Join(a, "b")))
	if typ, err := lstatType(t, c, filepath.Join(a, "b")); err != nil || typ != fs.ModeSymlink {
		t.Errorf("after replacing a, a/b is %v %v, want a link", typ, err)
	}

	// A listing sees a new entry.
	c.begin()
	before, err := c.ReadDir(dir)
	mustDo(t, err, os.WriteFile(filepath.Join(dir, "new"), nil, 0o600))
	c.begin()
	after, err := c.ReadDir(dir)
	mustDo(t, err)
	if len(after) != len(before)+1 {
		t.Errorf("listing after a new file: %d entries, before %d", len(after), len(before))
	}

	// Unchanged: answered from the cache.
	c.begin()
	c.Lstat(data)
	if _, ok := c.stats[data]; !ok {
		t.Errorf("an unchanged path is not cached")
	}
	c.begin()
	if _, ok := c.stats[data]; !ok {
		t.Errorf("a decision with no change in between dropped the cache")
	}
}

// TestGuardSeesLinkSwapAcrossDecisions: through the gate's own path
// (the default filesystem), a directory swapped for a link into ~/.ssh
// between two decisions is judged by what it is now.
func TestGuardSeesLinkSwapAcrossDecisions(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	mustDo(t, os.MkdirAll(filepath.Join(ws, "data"), 0o700), os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	if os.Getenv("PARALLAX_GUARD_FSCACHE") == "off" {
		t.Skip("the shared cache is off")
	}
	shareReads.Store(true)
	t.Cleanup(func() { shareReads.Store(false) })
	g := New(ws, home)
	if _, shared := g.fs.(*fsCache); !shared {
		t.Fatal("a guard built after ShareFilesystemReads does not use the shared cache")
	}
	if _, shared := New(ws, home, WithFS(osFS{})).fs.(*fsCache); shared {
		t.Fatal("WithFS must win over the shared cache")
	}
	target := filepath.Join(ws, "data", "config")
	for i := 0; i < 2; i++ {
		if f, ok := g.Memo().Check(target, action.AccessRead); ok && f.Decision == verdict.Block {
			t.Fatalf("before the swap: %+v", f)
		}
	}
	mustDo(t, os.Rename(filepath.Join(ws, "data"), filepath.Join(ws, "was")),
		os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "data")))
	if f, ok := g.Memo().Check(target, action.AccessRead); !ok || f.Decision != verdict.Block {
		t.Errorf("after the swap data/config reads ~/.ssh/config: got %+v %v, want BLOCK", f, ok)
	}
	if f, ok := g.Check(target, action.AccessRead); !ok || f.Decision != verdict.Block {
		t.Errorf("Check without a memo: got %+v %v, want BLOCK", f, ok)
	}
}

// TestFSCacheConcurrent: decisions and changes at once (run with -race).
func TestFSCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	c := newTestCache(t)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				c.begin()
				c.Lstat(filepath.Join(dir, "x"))
				c.ReadDir(dir)
			}
		}()
	}
	for j := 0; j < 50; j++ {
		p := filepath.Join(dir, "x")
		os.WriteFile(p, nil, 0o600)
		os.Remove(p)
	}
	wg.Wait()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o600)
	if _, err := lstatType(t, c, filepath.Join(dir, "x")); err != nil {
		t.Errorf("after the changes settle, x exists: %v", err)
	}
}

// TestFSCacheSkipsPseudoFilesystems: /proc changes without inotify
// events, so nothing below it is cached.
func TestFSCacheSkipsPseudoFilesystems(t *testing.T) {
	c := newTestCache(t)
	c.begin()
	c.Lstat("/proc/self")
	c.Lstat("/proc/self/status")
	c.ReadDir("/proc/self")
	if _, ok := c.stats["/proc/self/status"]; ok {
		t.Errorf("a path under /proc was cached")
	}
	if _, ok := c.dirs["/proc/self"]; ok {
		t.Errorf("a listing under /proc was cached")
	}
	dir := t.TempDir()
	c.Lstat(filepath.Join(dir, "x"))
	if _, ok := c.stats[filepath.Join(dir, "x")]; !ok {
		t.Skip("the temp directory is not on a local filesystem this cache watches")
	}
}

// flakyWatcher reports a change on every other check, and records what
// it watches in the current generation.
type flakyWatcher struct {
	mu      sync.Mutex
	n       int
	watched map[string]bool
}

func (f *flakyWatcher) watch(dir string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watched[dir] = true
	return true
}

func (f *flakyWatcher) changed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return f.n%2 == 0
}

func (f *flakyWatcher) reset() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watched = map[string]bool{}
	return true
}

// TestFSCacheNeverKeepsUnwatched: with decisions flushing the cache
// while others read, every entry the cache keeps has its directory
// watched by the current watcher (a read begun before a flush is not
// stored after it).
func TestFSCacheNeverKeepsUnwatched(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		mustDo(t, os.Mkdir(filepath.Join(dir, n), 0o700))
	}
	fw := &flakyWatcher{watched: map[string]bool{}}
	c := newFSCache(fw)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 300; j++ {
				c.begin()
				for _, n := range []string{"a", "b", "c", "a/x"} {
					c.Lstat(filepath.Join(dir, n))
				}
				c.ReadDir(dir)
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	fw.mu.Lock()
	defer fw.mu.Unlock()
	for p := range c.stats {
		if !fw.watched[filepath.Dir(p)] {
			t.Errorf("%s is cached but its directory is not watched", p)
		}
	}
	for p := range c.dirs {
		if !fw.watched[p] {
			t.Errorf("the listing of %s is cached but the directory is not watched", p)
		}
	}
}

// TestFSCacheReadAcrossFlush: a read that began before a flush is not
// kept after it, since the new watcher does not watch its directory.
func TestFSCacheReadAcrossFlush(t *testing.T) {
	dir := t.TempDir()
	fw := &flakyWatcher{watched: map[string]bool{}, n: 1} // the next check reports a change
	c := newFSCache(fw)
	c.afterRead = func() {
		c.afterRead = nil
		c.begin() // another decision starts and flushes mid-read
	}
	p := filepath.Join(dir, "x")
	if _, err := c.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("lstat: %v", err)
	}
	if _, kept := c.stats[p]; kept {
		t.Fatalf("a read from before the flush was kept; its directory is watched now: %v", fw.watched[dir])
	}
	// Without a flush in between, it is kept.
	c.Lstat(p)
	if _, kept := c.stats[p]; !kept {
		t.Fatalf("an ordinary read was not kept")
	}
}
