//go:build linux

package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/parallax/parallax/action"
	"github.com/parallax/parallax/internal/tools"
)

// tempSeq numbers temporary files; with the pid it makes their names
// unique without randomness (O_EXCL settles any clash).
var tempSeq atomic.Uint64

// hookBeforeRename lets tests fail an atomic write after its temporary
// file exists. Nil outside tests.
var hookBeforeRename func() error

func (e *Executor) write(pp *PathPlan, p *action.WriteFilePayload) (tools.Result, error) {
	const op = "write_file"
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
		if err := wantRegular(pn, st); err != nil {
			return tools.Result{}, err
		}
		if p.Append && st.Nlink > 1 {
			// In place, an append reaches every name of the inode, some
			// perhaps outside what the gate saw; a plain write replaces
			// only this name.
			return tools.Result{}, errf(tools.CodeNotRegular, op, pp.Path, "has %d hard links; refusing to append in place", st.Nlink)
		}
	}
	if p.Append {
		err = e.appendTo(pn, exists, p.Content)
	} else {
		perm, explicit := e.newPerm()
		if exists {
			perm, explicit = st.Mode&0o777, true
		}
		err = atomicWrite(pn, strings.NewReader(p.Content), perm, explicit)
	}
	if err != nil {
		return tools.Result{}, err
	}
	verb := "wrote"
	if p.Append {
		verb = "appended"
	}
	return tools.Result{Output: fmt.Sprintf("%s %d bytes to %s", verb, len(p.Content), pp.Path)}, nil
}

// newPerm is the mode of a new file: explicit from the config, or 0644
// left to the umask.
func (e *Executor) newPerm() (uint32, bool) {
	if e.cfg.NewFileMode != 0 {
		return uint32(e.cfg.NewFileMode.Perm()), true
	}
	return 0o644, false
}

// wantRegular refuses replacing anything but a regular file.
func wantRegular(pn *pinned, st *unix.Stat_t) error {
	switch t := modeType(st.Mode); {
	case t&fs.ModeDir != 0:
		return errf(tools.CodeIsDir, pn.op, pn.pp.Path, "is a directory; refusing to replace it with a file")
	case t != 0:
		return errf(tools.CodeNotRegular, pn.op, pn.pp.Path, "is %s, not a regular file", modeTypeName(st))
	}
	return nil
}

func modeTypeName(st *unix.Stat_t) string { return typeName(modeType(st.Mode)) }

// appendTo appends in place (an append cannot be atomic) and syncs.
func (e *Executor) appendTo(pn *pinned, exists bool, content string) error {
	var fd int
	var err error
	if exists {
		fd, _, err = pn.openFinal(unix.O_WRONLY | unix.O_APPEND | unix.O_NONBLOCK)
	} else {
		perm, explicit := e.newPerm()
		fd, err = unix.Openat(pn.dir, pn.name, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if errors.Is(err, unix.EEXIST) {
			return errf(tools.CodePathChanged, pn.op, pn.pp.Path, "%s did not exist at decision, now it does", pn.path())
		}
		if err == nil && explicit {
			err = unix.Fchmod(fd, perm)
		}
	}
	if err != nil {
		return wrapPathErr(pn.op, "", pn.path(), err)
	}
	f := os.NewFile(uintptr(fd), pn.path())
	_, err = io.WriteString(f, content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return wrapPathErr(pn.op, "", pn.path(), err)
	}
	return nil
}

// atomicWrite writes src to a temporary file next to the target, syncs
// it, checks the target is still what the plan saw, and renames it into
// place; the temporary file is removed on any error. perm is applied
// exactly when explicit, else left to the umask.
func atomicWrite(pn *pinned, src io.Reader, perm uint32, explicit bool) (err error) {
	tmp, fd, err := createTemp(pn, perm)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), pn.at+"/"+tmp)
	renamed := false
	defer func() {
		if !renamed {
			_ = f.Close()
			_ = unix.Unlinkat(pn.dir, tmp, 0)
		}
	}()
	if _, err := io.Copy(f, src); err != nil {
		return wrapPathErr(pn.op, "", pn.path(), fmt.Errorf("write temporary file: %w", err))
	}
	if explicit {
		if err := f.Chmod(fs.FileMode(perm)); err != nil {
			return wrapPathErr(pn.op, "", pn.path(), err)
		}
	}
	if err := f.Sync(); err != nil {
		return wrapPathErr(pn.op, "", pn.path(), fmt.Errorf("sync temporary file: %w", err))
	}
	if hookBeforeRename != nil {
		if err := hookBeforeRename(); err != nil {
			return wrapPathErr(pn.op, "", pn.path(), err)
		}
	}
	if _, _, err := pn.final(); err != nil {
		return err
	}
	if err := unix.Renameat(pn.dir, tmp, pn.dir, pn.name); err != nil {
		return wrapPathErr(pn.op, "", pn.path(), err)
	}
	renamed = true
	if err := f.Close(); err != nil {
		return wrapPathErr(pn.op, "", pn.path(), err)
	}
	return syncDir(pn)
}

// createTemp creates an empty temporary file in the pinned directory.
func createTemp(pn *pinned, perm uint32) (string, int, error) {
	mode := perm
	if mode == 0 {
		mode = 0o600
	}
	for range 100 {
		name := ".parallax-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(tempSeq.Add(1), 10) + ".tmp"
		fd, err := unix.Openat(pn.dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", -1, wrapPathErr(pn.op, "", pn.at, fmt.Errorf("create temporary file: %w", err))
		}
		return name, fd, nil
	}
	return "", -1, errf(tools.CodeIO, pn.op, pn.at, "no free temporary file name")
}

// syncDir makes a rename durable.
func syncDir(pn *pinned) error {
	fd, err := unix.Openat(pn.dir, ".", oDir, 0)
	if err != nil {
		return wrapPathErr(pn.op, "", pn.at, err)
	}
	defer func() { _ = unix.Close(fd) }()
	if err := unix.Fsync(fd); err != nil {
		return wrapPathErr(pn.op, "", pn.at, fmt.Errorf("sync directory: %w", err))
	}
	return nil
}

func (e *Executor) edit(pp *PathPlan, p *action.EditFilePayload) (tools.Result, error) {
	const op = "edit_file"
	if p.Old == "" {
		return tools.Result{}, errf(tools.CodeBadInput, op, pp.Path, "payload field \"old\" must not be empty")
	}
	pn, f, st, err := openRegularPinned(op, pp)
	if err != nil {
		return tools.Result{}, err
	}
	defer pn.close()
	defer f.Close()
	if st.Size > e.cfg.MaxEditBytes {
		return tools.Result{}, errf(tools.CodeTooLarge, op, pp.Path, "file is %d bytes, over the %d-byte edit limit", st.Size, e.cfg.MaxEditBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, e.cfg.MaxEditBytes+1))
	if err != nil {
		return tools.Result{}, wrapPathErr(op, "", pp.Path, err)
	}
	if int64(len(data)) > e.cfg.MaxEditBytes {
		return tools.Result{}, errf(tools.CodeTooLarge, op, pp.Path, "file grew over the %d-byte edit limit", e.cfg.MaxEditBytes)
	}
	switch n := bytes.Count(data, []byte(p.Old)); n {
	case 0:
		return tools.Result{}, errf(tools.CodeNoMatch, op, pp.Path, "the old text occurs 0 times; it must occur exactly once")
	case 1:
	default:
		return tools.Result{}, errf(tools.CodeAmbiguous, op, pp.Path, "the old text occurs %d times; it must occur exactly once (add surrounding lines)", n)
	}
	out := bytes.Replace(data, []byte(p.Old), []byte(p.New), 1)
	if err := atomicWrite(pn, bytes.NewReader(out), st.Mode&0o777, true); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Output: fmt.Sprintf("replaced 1 occurrence in %s (%d → %d bytes)", pp.Path, len(data), len(out))}, nil
}
