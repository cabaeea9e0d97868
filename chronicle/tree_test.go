package chronicle

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// treeFilesEnv sets the size of TestTreeSnapshotRollback's tree (default
// 500); the measurement uses 10000:
//
//	PARALLAX_CHRONICLE_FILES=10000 go test -run TestTreeSnapshotRollback -v ./chronicle/
//
// PARALLAX_CHRONICLE_NOSYNC=1 skips flushing objects, to see what the
// flush costs.
const (
	treeFilesEnv  = "PARALLAX_CHRONICLE_FILES"
	treeNoSyncEnv = "PARALLAX_CHRONICLE_NOSYNC"
)

// buildTree writes n files of 512..8191 bytes of seeded random content
// into n/100 directories; it returns the content bytes.
func buildTree(t testing.TB, ws string, n int) int64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var total int64
	buf := make([]byte, 8192)
	for i := range n {
		dir := filepath.Join(ws, "src", fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			must(t, os.MkdirAll(dir, 0o755))
		}
		size := 512 + rng.IntN(8192-512)
		for j := range size {
			buf[j] = 'a' + byte(rng.IntN(26))
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), buf[:size], 0o644))
		total += int64(size)
	}
	return total
}

// changeTree rewrites every 100th file (1%) with new content; it returns
// the bytes written.
func changeTree(t testing.TB, ws string, n int) (files int, bytes int64) {
	t.Helper()
	for i := 0; i < n; i += 100 {
		p := filepath.Join(ws, "src", fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("f%05d.txt", i))
		b := []byte(fmt.Sprintf("changed %d\n", i))
		for len(b) < 2048 {
			b = append(b, b...)
		}
		must(t, os.WriteFile(p, b, 0o644))
		files++
		bytes += int64(len(b))
	}
	return files, bytes
}

func objectBytes(t testing.TB, c *Chronicle) int64 {
	t.Helper()
	var n int64
	must(t, filepath.WalkDir(c.objects.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	}))
	return n
}

// TestTreeSnapshotRollback is the measurement: snapshot a tree,
// change 1% of its files, snapshot again (only the changed files are read
// and stored), roll back to the first snapshot.
func TestTreeSnapshotRollback(t *testing.T) {
	n := 500
	if v := os.Getenv(treeFilesEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			t.Fatalf("%s=%q: want a number ≥ 100", treeFilesEnv, v)
		}
	}
	ctx := context.Background()
	c, ws, _ := newTest(t, Options{NoSync: os.Getenv(treeNoSyncEnv) != ""})
	total := buildTree(t, ws, n)
	original := state(t, ws)
	// Files younger than the racy window are never cached; let them age,
	// as files in a real workspace have.
	time.Sleep(c.racy + 100*time.Millisecond)
	paths := abs(ws, "src")

	start := time.Now()
	s1, err := c.Snapshot(ctx, paths, "first", "s")
	must(t, err)
	t1 := time.Since(start)
	if s1.Stats.Hashed != n || s1.NewBytes != total || s1.Bytes != total {
		t.Errorf("first snapshot: got %+v, want %d files, %d bytes", s1, n, total)
	}
	t.Logf("tree: %d files, %d dirs, %.1f MB", n, n/100+1, float64(total)/1e6)
	t.Logf("snapshot 1: %v, stored %.1f MB (%d cloned, %d copied)", t1.Round(time.Millisecond),
		float64(s1.NewBytes)/1e6, s1.Stats.Cloned, s1.Stats.Copied)

	changed, changedBytes := changeTree(t, ws, n)
	storeBefore := objectBytes(t, c)
	start = time.Now()
	s2, err := c.Snapshot(ctx, paths, "second", "s")
	must(t, err)
	t2 := time.Since(start)
	if s2.Stats.Hashed != changed || s2.Stats.CacheHits != n-changed || s2.NewBytes != changedBytes {
		t.Errorf("second snapshot: got %+v NewBytes %d, want %d hashed, %d cache hits, %d new bytes",
			s2.Stats, s2.NewBytes, changed, n-changed, changedBytes)
	}
	if grown := objectBytes(t, c) - storeBefore; grown != changedBytes {
		t.Errorf("object store grew %d bytes, want %d", grown, changedBytes)
	}
	t.Logf("snapshot 2 (%d files = 1%% changed): %v, new bytes stored %d (%.2f%% of the tree), %d cache hits, %d hashed",
		changed, t2.Round(time.Millisecond), s2.NewBytes, 100*float64(s2.NewBytes)/float64(total), s2.Stats.CacheHits, s2.Stats.Hashed)

	c.noCache = true
	start = time.Now()
	s3, err := c.Snapshot(ctx, paths, "third, no stat cache", "s")
	must(t, err)
	t.Logf("snapshot 3 (same state, stat cache off): %v, new bytes %d, hashed %d (%.1f MB read)",
		time.Since(start).Round(time.Millisecond), s3.NewBytes, s3.Stats.Hashed, float64(s3.Stats.HashBytes)/1e6)
	c.noCache = false
	if s3.NewBytes != 0 || s3.Stats.Reused != n {
		t.Errorf("third snapshot: got %+v, want everything reused", s3.Stats)
	}

	start = time.Now()
	res, err := c.Rollback(ctx, s1.ID)
	must(t, err)
	t.Logf("rollback to snapshot 1: %v (%d restored, %d removed; undo is #%d)",
		time.Since(start).Round(time.Millisecond), res.Restored, res.Removed, res.Undo.ID)
	if d := diffStates(original, state(t, ws)); d != "" {
		t.Fatalf("after rollback:\n%s", d)
	}
	if res.Restored != changed || res.Removed != 0 {
		t.Errorf("rollback: got %+v, want %d restored", res, changed)
	}
	start = time.Now()
	must(t, c.Verify(ctx, true))
	t.Logf("verify (deep): %v", time.Since(start).Round(time.Millisecond))
}

// TestStatCacheSeesRewrites: a same-size rewrite with the old mtime put
// back still changes the ctime, so the cache does not vouch for it.
func TestStatCacheSeesRewrites(t *testing.T) {
	ctx := context.Background()
	c, ws, _ := newTest(t, Options{})
	c.racy = 50 * time.Millisecond
	writeTree(t, ws, spec{"a.txt": "aaaa", "b.txt": "bbbb"}, nil)
	time.Sleep(2 * c.racy)
	s1, err := c.Snapshot(ctx, abs(ws, "a.txt", "b.txt"), "x", "s")
	must(t, err)
	if s1.Stats.Hashed != 2 {
		t.Fatalf("got %+v", s1.Stats)
	}
	p := filepath.Join(ws, "a.txt")
	info, err := os.Stat(p)
	must(t, err)
	must(t, os.WriteFile(p, []byte("AAAA"), 0o644))
	must(t, os.Chtimes(p, info.ModTime(), info.ModTime()))
	s2, err := c.Snapshot(ctx, abs(ws, "a.txt", "b.txt"), "x", "s")
	must(t, err)
	if s2.Stats.Hashed != 1 || s2.Stats.CacheHits != 1 || s2.NewBytes != 4 {
		t.Errorf("got %+v new %d, want a.txt hashed, b.txt from cache", s2.Stats, s2.NewBytes)
	}
	// Objects removed by hand: the cache entry no longer counts.
	must(t, os.RemoveAll(c.objects.dir))
	must(t, os.MkdirAll(c.objects.dir, 0o700))
	s3, err := c.Snapshot(ctx, abs(ws, "b.txt"), "x", "s")
	must(t, err)
	if s3.Stats.Hashed != 1 || s3.NewBytes != 4 {
		t.Errorf("got %+v, want b.txt stored again", s3.Stats)
	}
}
