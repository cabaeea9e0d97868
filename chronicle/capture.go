package chronicle

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/parallax/parallax/internal/store"
)

// captureWorkers read files in parallel: the time goes to file creation
// and I/O in the kernel, not to hashing.
const captureWorkers = 4

// capture stores file contents for one snapshot.
type capture struct {
	c       *Chronicle
	root    *os.Root
	cache   map[string]store.StatEntry // from earlier snapshots
	trustNS int64                      // stat data older than this may enter the cache

	mu       sync.Mutex // guards the results below
	stats    Stats
	newBytes int64
	newPaths []string
	newCache []store.StatEntry
}

// all captures every file item, in parallel; the first error stops it.
func (cp *capture) all(ctx context.Context, items []item) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idx := make(chan int)
	var wg sync.WaitGroup
	for range captureWorkers {
		wg.Go(func() {
			for i := range idx {
				if err := cp.file(&items[i]); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range items {
		if items[i].typ != TypeFile {
			continue
		}
		select {
		case idx <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(idx)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

func (c *Chronicle) newCapture(ctx context.Context, root *os.Root, tops []string) (*capture, error) {
	now, err := c.fsNow()
	if err != nil {
		return nil, err
	}
	cache, err := c.db.StatCache(ctx, tops)
	if err != nil {
		return nil, err
	}
	if c.noCache {
		cache = nil
	}
	return &capture{c: c, root: root, cache: cache, trustNS: now - c.racy.Nanoseconds()}, nil
}

// fsNow reads the filesystem's clock: a one-byte write to a marker file
// sets its mtime to the filesystem's now. Comparing that with file ctimes
// avoids trusting the process clock (or an injected one) for the cache's
// racy check.
func (c *Chronicle) fsNow() (int64, error) {
	f, err := os.OpenFile(filepath.Join(c.dir, "clock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("read filesystem clock: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{'\n'}, 0); err != nil {
		return 0, fmt.Errorf("read filesystem clock: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("read filesystem clock: %w", err)
	}
	return st.ModTime().UnixNano(), nil
}

// statKey is the cache key of a file's stat data.
func statKey(rel string, fi fs.FileInfo) (store.StatEntry, error) {
	dev, ino, ctime, err := statExtra(fi)
	if err != nil {
		return store.StatEntry{}, err
	}
	return store.StatEntry{Path: rel, Dev: dev, Ino: ino, Size: fi.Size(), Mode: uint32(fi.Mode()),
		MtimeNS: fi.ModTime().UnixNano(), CtimeNS: ctime}, nil
}

func sameStat(a, b store.StatEntry) bool {
	return a.Path == b.Path && a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.Mode == b.Mode &&
		a.MtimeNS == b.MtimeNS && a.CtimeNS == b.CtimeNS
}

// file captures the content of it: from the stat cache when its stat data
// (device, inode, size, mode, mtime, ctime) is unchanged and the object is
// still stored, else by reading it into the object store.
func (cp *capture) file(it *item) error {
	key, err := statKey(it.rel, it.info)
	if err != nil {
		return err
	}
	if e, ok := cp.cache[it.rel]; ok && sameStat(e, key) && cp.c.objects.has(e.Object) {
		it.object, it.size = e.Object, key.Size
		cp.mu.Lock()
		cp.stats.CacheHits++
		cp.mu.Unlock()
		return nil
	}
	res, fi, err := cp.read(it)
	if err != nil {
		return err
	}
	it.info, it.object, it.size = fi, res.hash, res.size
	if key, err = statKey(it.rel, fi); err != nil {
		return err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.stats.Hashed++
	cp.stats.HashBytes += res.size
	switch {
	case res.reused:
		cp.stats.Reused++
	case res.cloned:
		cp.stats.Cloned++
	default:
		cp.stats.Copied++
	}
	if !res.reused {
		cp.newBytes += res.size
		cp.newPaths = append(cp.newPaths, res.path)
	}
	// A file changed within the racy window could change again without
	// its ctime moving; it is hashed again next time.
	if key.CtimeNS < cp.trustNS && key.MtimeNS < cp.trustNS {
		key.Object = res.hash
		cp.newCache = append(cp.newCache, key)
	}
	return nil
}

// read copies the file into the object store through the workspace root
// (no escape through a swapped symlink), checking that the file opened is
// the one scanned and that it did not change while being read. It
// returns the stat data matching the stored content.
func (cp *capture) read(it *item) (putResult, fs.FileInfo, error) {
	const attempts = 3
	for range attempts {
		res, fi, stable, err := cp.readOnce(it)
		if err != nil || stable {
			return res, fi, err
		}
		if it.info, err = cp.root.Lstat(it.rel); err != nil {
			return putResult{}, nil, fmt.Errorf("inspect %s: %w", it.rel, err)
		}
		if !it.info.Mode().IsRegular() {
			return putResult{}, nil, fmt.Errorf("%s changed type while being snapshotted", it.rel)
		}
	}
	return putResult{}, nil, fmt.Errorf("%s keeps changing while being snapshotted", it.rel)
}

func (cp *capture) readOnce(it *item) (res putResult, fi fs.FileInfo, stable bool, err error) {
	f, err := cp.root.OpenFile(it.rel, openReadFlags, 0)
	if err != nil {
		return putResult{}, nil, false, fmt.Errorf("open %s: %w", it.rel, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return putResult{}, nil, false, fmt.Errorf("inspect %s: %w", it.rel, err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, it.info) {
		return putResult{}, nil, false, nil // replaced since the scan
	}
	if res, err = cp.c.objects.put(f); err != nil {
		return putResult{}, nil, false, fmt.Errorf("copy %s: %w", it.rel, err)
	}
	after, err := f.Stat()
	if err != nil {
		return putResult{}, nil, false, fmt.Errorf("inspect %s: %w", it.rel, err)
	}
	a, errA := statKey(it.rel, fi)
	b, errB := statKey(it.rel, after)
	if errA != nil || errB != nil {
		return putResult{}, nil, false, fmt.Errorf("inspect %s: no stat data", it.rel)
	}
	return res, fi, sameStat(a, b) && res.size == fi.Size(), nil
}
