//go:build linux

package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

func (e *Executor) remove(ctx context.Context, pp *PathPlan, p *action.DeleteFilePayload) (tools.Result, error) {
	const op = "delete_file"
	pn, err := pin(op, pp, false, dirMode)
	if err != nil {
		return tools.Result{}, err
	}
	defer pn.close()
	st, exists, err := pn.final()
	if err != nil {
		return tools.Result{}, err
	}
	if !exists {
		return tools.Result{}, errf(tools.CodeNotFound, op, pp.Path, "no such file or directory")
	}
	if modeType(st.Mode)&fs.ModeDir == 0 {
		if err := unix.Unlinkat(pn.dir, pn.name, 0); err != nil {
			return tools.Result{}, wrapPathErr(op, "", pp.Path, err)
		}
		return tools.Result{Output: "deleted " + pp.Path}, nil
	}
	n := 0
	if p.Recursive {
		fd, _, err := pn.openFinal(oDir)
		if err != nil {
			return tools.Result{}, err
		}
		n, err = removeTree(ctx, op, fd, uint64(st.Dev), pp.Resolved) //nolint:unconvert // Dev is uint32 on some platforms
		if err != nil {
			return tools.Result{}, err
		}
	}
	if err := unix.Unlinkat(pn.dir, pn.name, unix.AT_REMOVEDIR); err != nil {
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			return tools.Result{}, errf(tools.CodeIsDir, op, pp.Path, "is a non-empty directory; set recursive to delete it")
		}
		return tools.Result{}, wrapPathErr(op, "", pp.Path, err)
	}
	if p.Recursive {
		return tools.Result{Output: fmt.Sprintf("deleted %s and %d entries below it", pp.Path, n)}, nil
	}
	return tools.Result{Output: "deleted " + pp.Path}, nil
}

// removeTree empties the directory open at fd (it takes fd over):
// symlinks are removed, never followed, and a directory on another
// device (a mount point) is refused. It returns how many entries went.
func removeTree(ctx context.Context, op string, fd int, dev uint64, at string) (int, error) {
	dir := os.NewFile(uintptr(fd), at)
	defer dir.Close()
	n := 0
	for {
		names, err := dir.Readdirnames(512)
		if len(names) == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				return n, wrapPathErr(op, "", at, err)
			}
			return n, nil
		}
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return n, errf(tools.CodeCanceled, op, at, "stopped after %d entries: %v", n, err)
			}
			k, err := removeEntry(ctx, op, fd, name, dev, at+"/"+name)
			n += k
			if err != nil {
				return n, err
			}
		}
	}
}

// removeEntry removes one entry of the directory fd, a directory with
// everything below it.
func removeEntry(ctx context.Context, op string, fd int, name string, dev uint64, p string) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, wrapPathErr(op, "", p, err)
	}
	if modeType(st.Mode)&fs.ModeDir == 0 {
		if err := unix.Unlinkat(fd, name, 0); err != nil {
			return 0, wrapPathErr(op, "", p, err)
		}
		return 1, nil
	}
	if uint64(st.Dev) != dev { //nolint:unconvert // Dev is uint32 on some platforms
		return 0, errf(tools.CodePermission, op, p, "is on another file system (a mount point); not deleted")
	}
	sub, err := unix.Openat(fd, name, oDir, 0)
	if err != nil {
		return 0, wrapPathErr(op, "", p, err)
	}
	n, err := removeTree(ctx, op, sub, dev, p)
	if err != nil {
		return n, err
	}
	if err := unix.Unlinkat(fd, name, unix.AT_REMOVEDIR); err != nil {
		return n, wrapPathErr(op, "", p, err)
	}
	return n + 1, nil
}

func (e *Executor) move(src, dst *PathPlan) (tools.Result, error) {
	const op = "move_file"
	sp, err := pin(op, src, false, dirMode)
	if err != nil {
		return tools.Result{}, err
	}
	defer sp.close()
	sst, exists, err := sp.final()
	if err != nil {
		return tools.Result{}, err
	}
	if !exists {
		return tools.Result{}, errf(tools.CodeNotFound, op, "source "+src.Path, "no such file or directory")
	}
	dp, err := pin(op, dst, true, dirMode)
	if err != nil {
		return tools.Result{}, err
	}
	defer dp.close()
	flags, err := replaceFlags(dp, modeType(sst.Mode)&fs.ModeDir != 0)
	if err != nil {
		return tools.Result{}, err
	}
	err = unix.Renameat2(sp.dir, sp.name, dp.dir, dp.name, flags)
	if errors.Is(err, unix.EXDEV) && modeType(sst.Mode) == 0 {
		return e.moveAcross(sp, dp, src, dst)
	}
	if errors.Is(err, unix.EEXIST) {
		return tools.Result{}, errf(tools.CodePathChanged, op, "destination "+dst.Path, "appeared since the decision")
	}
	if err != nil {
		return tools.Result{}, wrapPathErr(op, "", src.Path+" -> "+dst.Path, err)
	}
	if err := syncDir(dp); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Output: "moved " + src.Path + " to " + dst.Path}, nil
}

// replaceFlags checks the destination against the plan and says how the
// rename may treat it: a destination absent at decision must still be
// absent (RENAME_NOREPLACE); a directory is never replaced, nor is a
// file replaced by a directory.
func replaceFlags(dp *pinned, srcIsDir bool) (uint, error) {
	st, exists, err := dp.final()
	if err != nil {
		return 0, err
	}
	if !exists {
		return unix.RENAME_NOREPLACE, nil
	}
	part := "destination " + dp.pp.Path
	switch t := modeType(st.Mode); {
	case t&fs.ModeDir != 0:
		return 0, errf(tools.CodeExists, dp.op, part, "is an existing directory; name the full destination path")
	case srcIsDir:
		return 0, errf(tools.CodeExists, dp.op, part, "exists and is %s; refusing to replace it with a directory", typeName(t))
	case t != 0:
		return 0, errf(tools.CodeNotRegular, dp.op, part, "is %s, not a regular file", typeName(t))
	}
	return 0, nil
}

// moveAcross moves a regular file to another file system: an atomic copy,
// then the source is removed.
func (e *Executor) moveAcross(sp, dp *pinned, src, dst *PathPlan) (tools.Result, error) {
	f, st, err := sp.openRegular()
	if err != nil {
		return tools.Result{}, err
	}
	defer f.Close()
	if err := atomicWrite(dp, f, st.Mode&0o777, true); err != nil {
		return tools.Result{}, err
	}
	if err := unix.Unlinkat(sp.dir, sp.name, 0); err != nil {
		return tools.Result{}, wrapPathErr(sp.op, "", "source "+src.Path, fmt.Errorf("copied to %s but not removed: %w", dst.Path, err))
	}
	return tools.Result{Output: "moved " + src.Path + " to " + dst.Path + " (copied across file systems)"}, nil
}

func (e *Executor) mkdir(pp *PathPlan) (tools.Result, error) {
	const op = "create_directory"
	pn, err := pin(op, pp, true, dirMode)
	if err != nil {
		return tools.Result{}, err
	}
	defer pn.close()
	st, exists, err := pn.final()
	if err != nil {
		return tools.Result{}, err
	}
	if exists {
		if modeType(st.Mode)&fs.ModeDir == 0 {
			return tools.Result{}, errf(tools.CodeNotDir, op, pp.Path, "exists and is %s", modeTypeName(st))
		}
		return tools.Result{Output: pp.Path + " already exists"}, nil
	}
	if err := unix.Mkdirat(pn.dir, pn.name, dirMode); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return tools.Result{}, errf(tools.CodePathChanged, op, pp.Path, "appeared since the decision")
		}
		return tools.Result{}, wrapPathErr(op, "", pp.Path, err)
	}
	return tools.Result{Output: "created " + pp.Path}, nil
}
