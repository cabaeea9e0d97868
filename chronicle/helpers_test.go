package chronicle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock advances one minute per reading.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Minute)
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTest opens a Chronicle on a fresh workspace in t.TempDir().
func newTest(t testing.TB, opts Options) (*Chronicle, string, *fakeClock) {
	t.Helper()
	ws := t.TempDir()
	clk := &fakeClock{t: time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)}
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	c, err := Open(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c, c.Root(), clk
}

// spec describes a tree: "dir/" is a directory, "->target" a symlink,
// anything else file content. Modes: "path" → mode in modes.
type spec map[string]string

func writeTree(t testing.TB, ws string, s spec, modes map[string]fs.FileMode) {
	t.Helper()
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := filepath.Join(ws, filepath.FromSlash(strings.TrimSuffix(k, "/")))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		v := s[k]
		switch {
		case strings.HasSuffix(k, "/"):
			must(t, os.MkdirAll(p, 0o755))
		case strings.HasPrefix(v, "->"):
			must(t, os.Symlink(strings.TrimPrefix(v, "->"), p))
		default:
			must(t, os.WriteFile(p, []byte(v), 0o644))
		}
	}
	// Modes deepest first, so read-only directories are set last.
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	for _, k := range keys {
		if m, ok := modes[strings.TrimSuffix(k, "/")]; ok {
			must(t, os.Chmod(filepath.Join(ws, filepath.FromSlash(strings.TrimSuffix(k, "/"))), m))
		}
	}
}

// state describes everything under ws except .parallax: type, mode,
// content hash or link target, and file mtimes.
func state(t testing.TB, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		rel = filepath.ToSlash(rel)
		if rel == sealedDir {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch m := info.Mode(); {
		case m.IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = fmt.Sprintf("file %v %s %d", m, hex.EncodeToString(sum[:8]), info.ModTime().UnixNano())
		case m.IsDir():
			if rel != "." {
				out[rel] = fmt.Sprintf("dir %v", m)
			}
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink -> " + target
		default:
			out[rel] = m.String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffStates(before, after map[string]string) string {
	var b strings.Builder
	for k, v := range before {
		if after[k] != v {
			fmt.Fprintf(&b, "  %s: was %q, now %q\n", k, v, after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			fmt.Fprintf(&b, "  %s: new %q\n", k, v)
		}
	}
	return b.String()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func abs(ws string, rels ...string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = filepath.Join(ws, filepath.FromSlash(r))
	}
	return out
}

// objectFiles counts the files in the object store.
func objectFiles(t testing.TB, c *Chronicle) int {
	t.Helper()
	n := 0
	must(t, filepath.WalkDir(c.objects.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	}))
	return n
}
