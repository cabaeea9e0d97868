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

	"github.com/parallax/parallax/internal/tools"
)

func (e *Executor) copy(ctx context.Context, src, dst *PathPlan) (tools.Result, error) {
	const op = "copy_file"
	if src.Exists() && src.Last().Type&fs.ModeDir != 0 {
		return e.copyDir(ctx, src, dst)
	}
	sp, f, st, err := openRegularPinned(op, src)
	if err != nil {
		return tools.Result{}, err
	}
	defer sp.close()
	defer f.Close()
	dp, err := pin(op, dst, true, dirMode)
	if err != nil {
		return tools.Result{}, err
	}
	defer dp.close()
	if _, err := replaceFlags(dp, false); err != nil {
		return tools.Result{}, err
	}
	if err := atomicWrite(dp, f, st.Mode&0o777, true); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Output: fmt.Sprintf("copied %s to %s (%d bytes)", src.Path, dst.Path, st.Size)}, nil
}

// copyDir copies a directory tree to a destination that must not exist:
// regular files with their permission bits, directories, and symlinks as
// symlinks (never followed); other files are skipped. It stays on the
// source's file system and stops at MaxCopyEntries. Not atomic: a copy
// that fails part way leaves what it copied.
func (e *Executor) copyDir(ctx context.Context, src, dst *PathPlan) (tools.Result, error) {
	const op = "copy_file"
	if err := needJudge(op, src.Path, e.cfg.Judge); err != nil {
		return tools.Result{}, err
	}
	if dst.Resolved == src.Resolved || strings.HasPrefix(dst.Resolved, src.Resolved+"/") {
		return tools.Result{}, errf(tools.CodeBadInput, op, "destination "+dst.Path, "is inside the source directory %s", src.Path)
	}
	sfd, sst, err := openPlannedDir(op, src)
	if err != nil {
		return tools.Result{}, err
	}
	dp, err := pin(op, dst, true, dirMode)
	if err != nil {
		_ = unix.Close(sfd)
		return tools.Result{}, err
	}
	defer dp.close()
	if _, exists, err := dp.final(); err != nil || exists {
		_ = unix.Close(sfd)
		if err == nil {
			err = errf(tools.CodeExists, op, "destination "+dst.Path, "exists; copying a directory needs a new destination")
		}
		return tools.Result{}, err
	}
	dfd, err := mkdirOpen(dp.dir, dp.name, sst.Mode&0o777)
	if err != nil {
		_ = unix.Close(sfd)
		return tools.Result{}, wrapPathErr(op, "", "destination "+dst.Path, err)
	}
	c := &treeCopy{ctx: ctx, op: op, dev: uint64(sst.Dev), limit: e.cfg.MaxCopyEntries, judge: e.cfg.Judge} //nolint:unconvert // Dev is uint32 on some platforms
	err = c.tree(sfd, dfd, src.Resolved)
	if err != nil {
		return tools.Result{}, err
	}
	out := fmt.Sprintf("copied %s to %s (%d entries", src.Path, dst.Path, c.n)
	if c.skipped > 0 {
		out += fmt.Sprintf(", %d special files or mount points skipped", c.skipped)
	}
	out += ")"
	if note := c.note(); note != "" {
		out += "\n" + note
	}
	return tools.Result{Output: out}, nil
}

// mkdirOpen creates directory name below dir (it must not exist) and
// opens it.
func mkdirOpen(dir int, name string, perm uint32) (int, error) {
	if err := unix.Mkdirat(dir, name, 0o700); err != nil {
		return -1, err
	}
	fd, err := unix.Openat(dir, name, oDir, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Fchmod(fd, perm); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// treeCopy is the state of one directory copy. Every entry is judged
// before it is read: a withheld entry is not copied (a copy would carry a
// secret out of the place that restricts it, such as ~/.aws).
type treeCopy struct {
	ctx        context.Context
	op         string
	dev        uint64
	limit      int
	judge      Judge
	n, skipped int
	withheld
}

// tree copies the entries of the directory sfd into dfd (both taken over).
func (c *treeCopy) tree(sfd, dfd int, at string) error {
	sdir := os.NewFile(uintptr(sfd), at)
	defer sdir.Close()
	defer func() { _ = unix.Close(dfd) }()
	names, err := sdir.Readdirnames(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return wrapPathErr(c.op, "", at, err)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := c.ctx.Err(); err != nil {
			return errf(tools.CodeCanceled, c.op, at, "stopped after %d entries: %v", c.n, err)
		}
		if c.n == c.limit {
			return errf(tools.CodeTooLarge, c.op, at, "more than %d entries; stopped (the copy is partial)", c.limit)
		}
		if err := c.entry(sfd, dfd, name, at+"/"+name); err != nil {
			return err
		}
	}
	return nil
}

// entry copies one entry of sfd into dfd.
func (c *treeCopy) entry(sfd, dfd int, name, p string) error {
	if skip, why := c.judge(p); skip {
		c.withhold(why)
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstatat(sfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return wrapPathErr(c.op, "", p, err)
	}
	var err error
	switch t := modeType(st.Mode); {
	case t == 0:
		err = copyFileAt(sfd, dfd, name, st.Mode&0o777)
	case t&fs.ModeSymlink != 0:
		var target string
		if target, err = readlinkAt(sfd, name); err == nil {
			err = unix.Symlinkat(target, dfd, name)
		}
	case t&fs.ModeDir != 0 && uint64(st.Dev) == c.dev: //nolint:unconvert // Dev is uint32 on some platforms
		var sub, dsub int
		if sub, err = unix.Openat(sfd, name, oDir, 0); err != nil {
			break
		}
		if dsub, err = mkdirOpen(dfd, name, st.Mode&0o777); err != nil {
			_ = unix.Close(sub)
			break
		}
		c.n++
		return c.tree(sub, dsub, p)
	default:
		c.skipped++
		return nil
	}
	if err != nil {
		return wrapPathErr(c.op, "", p, err)
	}
	c.n++
	return nil
}

// copyFileAt copies regular file name from sfd to a new file in dfd.
func copyFileAt(sfd, dfd int, name string, perm uint32) error {
	in, err := unix.Openat(sfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	fin := os.NewFile(uintptr(in), name)
	defer fin.Close()
	out, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	fout := os.NewFile(uintptr(out), name)
	_, err = io.Copy(fout, fin)
	if err == nil {
		err = fout.Chmod(fs.FileMode(perm))
	}
	if cerr := fout.Close(); err == nil {
		err = cerr
	}
	return err
}

func readlinkAt(dir int, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dir, name, buf)
	if err != nil {
		return "", err
	}
	if n == len(buf) {
		return "", unix.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}
