//go:build linux

package files

import (
	"errors"
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/internal/tools"
)

// pinned is the parent directory of a planned path, opened by walking
// from the root one component at a time without following symlinks and
// checking each opened directory against the plan. Whatever happens to
// the names afterwards, operations relative to dir reach the objects the
// gate decided on.
type pinned struct {
	op   string
	pp   *PathPlan
	dir  int    // O_PATH descriptor of the parent directory
	name string // the last component
	at   string // the parent's path, for messages
}

func (p *pinned) close() { _ = unix.Close(p.dir) }

// path is the full path of the last component, for messages.
func (p *pinned) path() string { return p.pp.Resolved }

// hookAfterVerify lets tests change the file system between the
// re-resolution and the descriptor walk. Nil outside tests.
var hookAfterVerify func()

const (
	oPath = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	oDir  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
)

// pin verifies pp and opens its parent. With mkdirs, missing parents are
// created (mode dirMode before umask); they must still be missing.
func pin(op string, pp *PathPlan, mkdirs bool, dirMode uint32) (*pinned, error) {
	if err := verify(op, pp); err != nil {
		return nil, err
	}
	if hookAfterVerify != nil {
		hookAfterVerify()
	}
	comps := components(pp.Resolved)
	if len(comps) == 0 {
		return nil, errf(tools.CodeBadInput, op, pp.Path, "refused: the root directory")
	}
	fd, err := unix.Open("/", oPath, 0)
	if err != nil {
		return nil, wrapPathErr(op, "", "/", err)
	}
	if err := checkFD(op, pp, fd, 0, "/"); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	for i, c := range comps[:len(comps)-1] {
		at := "/" + strings.Join(comps[:i+1], "/")
		next, err := stepDir(op, pp, fd, c, i+1, at, mkdirs, dirMode)
		_ = unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = next
	}
	return &pinned{op: op, pp: pp, dir: fd, name: comps[len(comps)-1],
		at: "/" + strings.Join(comps[:len(comps)-1], "/")}, nil
}

// stepDir opens component c (index i in the chain) below fd.
func stepDir(op string, pp *PathPlan, fd int, c string, i int, at string, mkdirs bool, mode uint32) (int, error) {
	if i >= len(pp.Chain) {
		if !mkdirs {
			return -1, errf(tools.CodeNotFound, op, pp.Path, "directory %s does not exist", at)
		}
		if err := unix.Mkdirat(fd, c, mode); err != nil {
			if errors.Is(err, unix.EEXIST) {
				return -1, errf(tools.CodePathChanged, op, pp.Path, "%s did not exist at decision, now it does", at)
			}
			return -1, wrapPathErr(op, "", at, err)
		}
	}
	next, err := unix.Openat(fd, c, oPath, 0)
	if err != nil {
		if errors.Is(err, unix.ENOTDIR) && i < len(pp.Chain) && pp.Chain[i].Type&fs.ModeDir == 0 {
			return -1, errf(tools.CodeNotDir, op, pp.Path, "%s is %s, not a directory", at, pp.Chain[i])
		}
		return -1, errf(tools.CodePathChanged, op, pp.Path, "%s is no longer the directory seen at decision (%v)", at, err)
	}
	if i < len(pp.Chain) {
		if err := checkFD(op, pp, next, i, at); err != nil {
			_ = unix.Close(next)
			return -1, err
		}
	}
	return next, nil
}

// checkFD compares an open descriptor with the plan's chain entry i.
func checkFD(op string, pp *PathPlan, fd, i int, at string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return wrapPathErr(op, "", at, err)
	}
	if got := identOf(&st); got != pp.Chain[i] {
		return errf(tools.CodePathChanged, op, pp.Path, "%s is not the object seen at decision (now %s)", at, got)
	}
	return nil
}

// final checks the last component against the plan, without following
// it: it must be the planned object, or still absent. It returns the
// object's stat when it exists.
func (p *pinned) final() (*unix.Stat_t, bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(p.dir, p.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		if p.pp.Exists() {
			return nil, false, errf(tools.CodePathChanged, p.op, p.pp.Path, "%s was %s at decision, now gone", p.path(), p.pp.Last())
		}
		return nil, false, nil
	case err != nil:
		return nil, false, wrapPathErr(p.op, "", p.path(), err)
	}
	if !p.pp.Exists() {
		return nil, false, errf(tools.CodePathChanged, p.op, p.pp.Path, "%s did not exist at decision, now it is %s", p.path(), identOf(&st))
	}
	if got := identOf(&st); got != p.pp.Last() {
		return nil, false, errf(tools.CodePathChanged, p.op, p.pp.Path, "%s is not the object seen at decision (now %s)", p.path(), got)
	}
	return &st, true, nil
}

// openFinal opens the last component with flags|O_NOFOLLOW and checks
// the opened object is the planned one.
func (p *pinned) openFinal(flags int) (int, *unix.Stat_t, error) {
	fd, err := unix.Openat(p.dir, p.name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return -1, nil, errf(tools.CodePathChanged, p.op, p.pp.Path, "%s became a symlink since the decision", p.path())
		}
		return -1, nil, wrapPathErr(p.op, "", p.path(), err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = unix.Close(fd)
		return -1, nil, wrapPathErr(p.op, "", p.path(), err)
	}
	if !p.pp.Exists() || identOf(&st) != p.pp.Last() {
		_ = unix.Close(fd)
		return -1, nil, errf(tools.CodePathChanged, p.op, p.pp.Path, "%s is not the object seen at decision", p.path())
	}
	return fd, &st, nil
}

// openDir opens the pinned path itself as a readable directory.
func (p *pinned) openDir() (int, error) {
	if !p.pp.Exists() {
		return -1, errf(tools.CodeNotFound, p.op, p.pp.Path, "%s does not exist", p.path())
	}
	if p.pp.Last().Type&fs.ModeDir == 0 {
		return -1, errf(tools.CodeNotDir, p.op, p.pp.Path, "%s is %s, not a directory", p.path(), p.pp.Last())
	}
	fd, _, err := p.openFinal(unix.O_RDONLY | unix.O_DIRECTORY)
	return fd, err
}
