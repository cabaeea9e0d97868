//go:build linux

package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
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

// walker is one directory walk (list_directory, search_files). Every
// entry is judged before anything else is done with it: a withheld entry
// is neither visited (shown, matched, read) nor entered, only counted.
type walker struct {
	op        string
	dev       uint64 // the root's device: other file systems are not entered
	recursive bool
	judge     Judge
	visit     visitFunc
	withheld
}

// newWalker refuses a walk with no judge: a walk is never unguarded.
func newWalker(op, at string, judge Judge, recursive bool, visit visitFunc) (*walker, error) {
	if err := needJudge(op, at, judge); err != nil {
		return nil, err
	}
	return &walker{op: op, recursive: recursive, judge: judge, visit: visit}, nil
}

// needJudge refuses a walk with no judge (no_guard).
func needJudge(op, at string, judge Judge) error {
	if judge == nil {
		return errf(tools.CodeNoGuard, op, at, "no guard judges the entries of the walk")
	}
	return nil
}

// walk visits the tree below the directory fd (taken over), whose
// absolute path is at, in sorted order, depth first. Symlinks are
// visited, never followed; directories on another device are visited,
// not entered.
func (w *walker) walk(ctx context.Context, fd int, at, rel string) error {
	dir := os.NewFile(uintptr(fd), at)
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return wrapPathErr(w.op, "", at, err)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return errf(tools.CodeCanceled, w.op, at, "%v", err)
		}
		abs := path.Join(at, name)
		if skip, why := w.judge(abs); skip {
			w.withhold(why)
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone while we looked
			}
			return wrapPathErr(w.op, "", abs, err)
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		if err := w.visit(r, &st, fd, name); err != nil {
			return err
		}
		if !w.recursive || modeType(st.Mode)&fs.ModeDir == 0 || uint64(st.Dev) != w.dev { //nolint:unconvert // Dev is uint32 on some platforms
			continue
		}
		sub, err := unix.Openat(fd, name, oDir, 0)
		if err != nil {
			if errors.Is(err, unix.EACCES) {
				continue // unreadable directories are listed, not entered
			}
			return wrapPathErr(w.op, "", abs, err)
		}
		if err := w.walk(ctx, sub, abs, r); err != nil {
			return err
		}
	}
	return nil
}

// withheld counts the entries a walk skipped on its judge's word.
type withheld struct {
	n   int
	why []string // the classes withheld, sorted, distinct
}

func (w *withheld) withhold(why string) {
	if why == "" {
		why = "guarded"
	}
	w.n++
	if i, found := slices.BinarySearch(w.why, why); !found {
		w.why = slices.Insert(w.why, i, why)
	}
}

// note is the line that counts the withheld entries ("" when none): how
// many and of which classes, never their names.
func (w *withheld) note() string {
	if w.n == 0 {
		return ""
	}
	noun := "entries"
	if w.n == 1 {
		noun = "entry"
	}
	return fmt.Sprintf("[%d %s withheld (%s)]\n", w.n, noun, strings.Join(w.why, " or "))
}

// walkPlanned opens the planned directory pp and walks it with w.
func (w *walker) walkPlanned(ctx context.Context, pp *PathPlan) error {
	fd, st, err := openPlannedDir(w.op, pp)
	if err != nil {
		return err
	}
	w.dev = uint64(st.Dev) //nolint:unconvert // Dev is uint32 on some platforms
	err = w.walk(ctx, fd, pp.Resolved, "")
	if errors.Is(err, errStop) {
		return nil
	}
	return err
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
	out := newCapped(e.cfg.MaxOutputBytes)
	n := 0
	w, err := newWalker(op, pp.Path, e.cfg.Judge, p.Recursive, func(rel string, st *unix.Stat_t, dirfd int, name string) error {
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
	if err != nil {
		return tools.Result{}, err
	}
	if err := w.walkPlanned(ctx, pp); err != nil {
		return tools.Result{}, err
	}
	res := tools.Result{Output: out.String(), Truncated: out.truncated}
	if n == 0 && w.n == 0 {
		res.Output = "(empty directory)\n"
	}
	if out.truncated {
		res.Output += fmt.Sprintf("[… listing stopped after %d entries]\n", n)
	}
	res.Output += w.note()
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
