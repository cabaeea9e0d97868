//go:build linux

package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// errStop ends a walk early; it is not a failure.
var errStop = errors.New("stop walking")

// visitFunc sees one entry of a walk: its path relative to the walk's
// root, its lstat, and the directory descriptor it sits in.
type visitFunc func(rel string, st *unix.Stat_t, dirfd int, name string) error

// walkTree visits the tree below the directory fd (taken over) in sorted
// order, depth first. Symlinks are reported, never followed; directories
// on another device are reported, not entered.
func walkTree(ctx context.Context, op string, fd int, dev uint64, at, rel string, recursive bool, fn visitFunc) error {
	dir := os.NewFile(uintptr(fd), at)
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return wrapPathErr(op, "", at, err)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return errf(tools.CodeCanceled, op, at, "%v", err)
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone while we looked
			}
			return wrapPathErr(op, "", at+"/"+name, err)
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		if err := fn(r, &st, fd, name); err != nil {
			return err
		}
		if !recursive || modeType(st.Mode)&fs.ModeDir == 0 || uint64(st.Dev) != dev { //nolint:unconvert // Dev is uint32 on some platforms
			continue
		}
		sub, err := unix.Openat(fd, name, oDir, 0)
		if err != nil {
			if errors.Is(err, unix.EACCES) {
				continue // unreadable directories are listed, not entered
			}
			return wrapPathErr(op, "", at+"/"+name, err)
		}
		if err := walkTree(ctx, op, sub, dev, at+"/"+name, r, true, fn); err != nil {
			return err
		}
	}
	return nil
}

// openPlannedDir verifies pp and opens it as a readable directory.
func openPlannedDir(op string, pp *PathPlan) (int, *unix.Stat_t, error) {
	var fd int
	if pp.Resolved == "/" {
		if err := verify(op, pp); err != nil {
			return -1, nil, err
		}
		var err error
		if fd, err = unix.Open("/", oDir, 0); err != nil {
			return -1, nil, wrapPathErr(op, "", "/", err)
		}
	} else {
		pn, err := pin(op, pp, false, dirMode)
		if err != nil {
			return -1, nil, err
		}
		fd, err = pn.openDir()
		pn.close()
		if err != nil {
			return -1, nil, err
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || identOf(&st) != pp.Last() {
		_ = unix.Close(fd)
		return -1, nil, errf(tools.CodePathChanged, op, pp.Path, "is not the directory seen at decision")
	}
	return fd, &st, nil
}

func (e *Executor) list(ctx context.Context, pp *PathPlan, p *action.ListDirectoryPayload) (tools.Result, error) {
	const op = "list_directory"
	fd, st, err := openPlannedDir(op, pp)
	if err != nil {
		return tools.Result{}, err
	}
	out := newCapped(e.cfg.MaxOutputBytes)
	n := 0
	err = walkTree(ctx, op, fd, uint64(st.Dev), pp.Resolved, "", p.Recursive, //nolint:unconvert // Dev is uint32 on some platforms
		func(rel string, st *unix.Stat_t, dirfd int, name string) error {
			if n == e.cfg.MaxListEntries {
				out.truncated = true
				return errStop
			}
			if !out.line(entryLine(rel, st, dirfd, name)) {
				return errStop
			}
			n++
			return nil
		})
	if err != nil && !errors.Is(err, errStop) {
		return tools.Result{}, err
	}
	res := tools.Result{Output: out.String(), Truncated: out.truncated}
	if n == 0 {
		res.Output = "(empty directory)\n"
	}
	if out.truncated {
		res.Output += fmt.Sprintf("[… listing stopped after %d entries]\n", n)
	}
	return res, nil
}

// entryLine renders one entry: type, size, path (directories end in /,
// symlinks show their target).
func entryLine(rel string, st *unix.Stat_t, dirfd int, name string) string {
	switch t := modeType(st.Mode); {
	case t&fs.ModeDir != 0:
		return "dir\t-\t" + rel + "/"
	case t&fs.ModeSymlink != 0:
		target := "?"
		buf := make([]byte, 1024)
		if k, err := unix.Readlinkat(dirfd, name, buf); err == nil {
			target = string(buf[:k])
		}
		return "link\t-\t" + rel + " -> " + target
	case t == 0:
		return fmt.Sprintf("file\t%d\t%s", st.Size, rel)
	default:
		return "other\t-\t" + rel
	}
}

// capped collects lines up to a byte bound.
type capped struct {
	b         strings.Builder
	max       int
	truncated bool
}

func newCapped(n int) *capped { return &capped{max: n} }

// line adds s and a newline; false (and truncated) when it would not fit.
func (c *capped) line(s string) bool {
	if c.b.Len()+len(s)+1 > c.max {
		c.truncated = true
		return false
	}
	c.b.WriteString(s)
	c.b.WriteByte('\n')
	return true
}

func (c *capped) String() string { return c.b.String() }
