package chronicle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parallax/parallax/internal/store"
)

// ChangeKind says how a path differs from its snapshot.
type ChangeKind string

// Change kinds.
const (
	Unchanged ChangeKind = "unchanged"
	Modified  ChangeKind = "modified"
	Deleted   ChangeKind = "deleted" // existed in the snapshot, gone now
	Created   ChangeKind = "created" // absent from the snapshot, there now
)

// MaxTextDiff is the largest file (either side) Diff shows line by line.
const MaxTextDiff = 64 << 10

// Change is one path of a diff.
type Change struct {
	Path    string
	Kind    ChangeKind
	Detail  string // what differs, e.g. "content, mode 0644 → 0600"
	Unified string // unified diff for small text files, else ""
}

// Diff compares snapshot id with the current state of its paths: every
// entry of the snapshot, plus what appeared inside its directories since.
// Sorted by path.
func (c *Chronicle) Diff(ctx context.Context, id int64) ([]Change, error) {
	unlock, err := lockFile(c.lockPath(), false)
	if err != nil {
		return nil, fmt.Errorf("diff #%d: %w", id, err)
	}
	defer unlock()
	rec, files, err := c.load(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("diff #%d: %w", id, err)
	}
	root, err := os.OpenRoot(c.root)
	if err != nil {
		return nil, fmt.Errorf("diff #%d: %w", id, err)
	}
	defer root.Close()
	cache, err := c.db.StatCache(ctx, rec.Paths)
	if err != nil {
		return nil, fmt.Errorf("diff #%d: %w", id, err)
	}
	d := differ{c: c, root: root, cache: cache, id: id, known: map[string]bool{}}
	for _, f := range files {
		d.known[f.Path] = true
	}
	var out []Change
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ch, err := d.entry(f)
		if err != nil {
			return nil, fmt.Errorf("diff #%d: %w", id, err)
		}
		out = append(out, ch...)
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

type differ struct {
	c     *Chronicle
	root  *os.Root
	cache map[string]store.StatEntry
	id    int64
	known map[string]bool
}

func (d *differ) entry(f store.FileRecord) ([]Change, error) {
	cur, err := d.root.Lstat(f.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("inspect %s: %w", f.Path, err)
	}
	exists := err == nil
	was := Type(f.Type)
	switch {
	case was == TypeAbsent && !exists:
		return []Change{{Path: f.Path, Kind: Unchanged}}, nil
	case was == TypeAbsent:
		return []Change{d.created(f.Path, cur)}, nil
	case !exists:
		ch := Change{Path: f.Path, Kind: Deleted, Detail: string(was)}
		if was == TypeFile {
			ch.Unified = d.unified(f, nil, false)
		}
		return []Change{ch}, nil
	}
	now := itemType(cur.Mode())
	if now != was {
		return []Change{{Path: f.Path, Kind: Modified, Detail: fmt.Sprintf("type %s → %s", was, now)}}, nil
	}
	var details []string
	ch := Change{Path: f.Path}
	if was != TypeSymlink && unixMode(cur.Mode()) != f.Mode {
		details = append(details, fmt.Sprintf("mode %04o → %04o", f.Mode, unixMode(cur.Mode())))
	}
	var extra []Change
	switch was {
	case TypeFile:
		same, err := d.sameContent(f, cur)
		if err != nil {
			return nil, err
		}
		if !same {
			details = append([]string{"content"}, details...)
			if content, ok := d.current(f.Path, cur); ok {
				ch.Unified = d.unified(f, content, true)
			}
		}
	case TypeSymlink:
		if t, err := d.root.Readlink(f.Path); err != nil || t != f.Link {
			details = append(details, fmt.Sprintf("link %s → %s", f.Link, t))
		}
	case TypeDir:
		if extra, err = d.newChildren(f.Path); err != nil {
			return nil, err
		}
	}
	ch.Kind, ch.Detail = Unchanged, strings.Join(details, ", ")
	if len(details) > 0 {
		ch.Kind = Modified
	}
	return append(extra, ch), nil
}

func itemType(m fs.FileMode) Type {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	default:
		return Type(m.Type().String())
	}
}

func (d *differ) created(p string, cur fs.FileInfo) Change {
	ch := Change{Path: p, Kind: Created, Detail: string(itemType(cur.Mode()))}
	if content, ok := d.current(p, cur); ok {
		ch.Unified = unifiedDiff("/dev/null", "b/"+p, nil, content)
	}
	return ch
}

// newChildren reports the entries of dir the snapshot did not have.
func (d *differ) newChildren(dir string) ([]Change, error) {
	f, err := d.root.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	names, err := f.Readdirnames(-1)
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []Change
	for _, n := range names {
		p := path.Join(dir, n)
		if d.known[p] || p == sealedDir {
			continue
		}
		info, err := d.root.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("inspect %s: %w", p, err)
		}
		out = append(out, d.created(p, info))
	}
	return out, nil
}

// sameContent compares the current file with the snapshot's object, by
// the stat cache when it vouches for the file, else by hashing it.
func (d *differ) sameContent(f store.FileRecord, cur fs.FileInfo) (bool, error) {
	if cur.Size() != f.Size {
		return false, nil
	}
	if key, err := statKey(f.Path, cur); err == nil {
		if e, ok := d.cache[f.Path]; ok && sameStat(e, key) {
			return e.Object == f.Object, nil
		}
	}
	file, err := d.root.OpenFile(f.Path, openReadFlags, 0)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer file.Close()
	h := sha256.New()
	if _, err := copyBuf(h, file); err != nil {
		return false, fmt.Errorf("read %s: %w", f.Path, err)
	}
	return hex.EncodeToString(h.Sum(nil)) == f.Object, nil
}

// current reads a small regular file that looks like text.
func (d *differ) current(p string, cur fs.FileInfo) ([]byte, bool) {
	if !cur.Mode().IsRegular() || cur.Size() > MaxTextDiff {
		return nil, false
	}
	f, err := d.root.OpenFile(p, openReadFlags, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTextDiff+1))
	if err != nil || !isText(b) {
		return nil, false
	}
	return b, true
}

// unified diffs the snapshot's version of f against now (nil when the
// file is gone), if both are small text.
func (d *differ) unified(f store.FileRecord, now []byte, exists bool) string {
	if f.Size > MaxTextDiff {
		return ""
	}
	old, err := d.c.objects.read(f.Object, MaxTextDiff)
	if err != nil || !isText(old) {
		return ""
	}
	from := fmt.Sprintf("a/%s (#%d)", f.Path, d.id)
	if !exists {
		return unifiedDiff(from, "/dev/null", old, nil)
	}
	return unifiedDiff(from, "b/"+f.Path, old, now)
}

func isText(b []byte) bool {
	return len(b) <= MaxTextDiff && bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}
