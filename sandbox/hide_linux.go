//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// hideCaps are the capabilities the wrapper keeps, inside its own user
// namespace only, until it has mounted the masks: CAP_SYS_ADMIN to
// mount, CAP_SETPCAP to empty its bounding set afterwards.
var hideCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}

// maskFlags and maskData make each mask an empty, read-only directory
// nothing can be written to or executed from. It can be listed (it is
// empty): a hidden path looks like an empty directory, not a permission
// error, so recursive tools (find, grep -r, gofmt -l) and git walk past
// it as if it held nothing, instead of failing the command.
const (
	maskFlags = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	maskData  = "mode=0555,size=4k"
)

// SysProcAttr is what the process running the wrapper needs for the
// spec: nil without Hide, else a new user and mount namespace, the
// caller's uid and gid mapped to themselves, and the capabilities to
// mount kept across the wrapper's exec (the wrapper drops them before
// it execs the command).
func (s CommandSpec) SysProcAttr() *syscall.SysProcAttr {
	if len(s.Hide) == 0 && !s.Isolate {
		return nil
	}
	uid, gid := os.Getuid(), os.Getgid()
	a := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: hideCaps,
	}
	if s.Isolate {
		a.Cloneflags |= isolateCloneFlags
		// CAP_NET_ADMIN, in the command's own network namespace only, to
		// bring its loopback interface up; dropped with the others.
		a.AmbientCaps = append(append(append([]uintptr(nil), hideCaps...), overlayCaps...), unix.CAP_NET_ADMIN)
	}
	return a
}

// SetSysProcAttr puts the spec's namespace attributes on cmd, keeping
// whatever else cmd.SysProcAttr already holds (a process group, a death
// signal). It is how a caller that builds its own *exec.Cmd and takes
// only Path and Args from Command keeps the masks; without them the
// wrapper refuses to run a spec with Hide.
func (s CommandSpec) SetSysProcAttr(cmd *exec.Cmd) {
	a := s.SysProcAttr()
	if a == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Cloneflags |= a.Cloneflags
	cmd.SysProcAttr.UidMappings, cmd.SysProcAttr.GidMappings = a.UidMappings, a.GidMappings
	cmd.SysProcAttr.GidMappingsEnableSetgroups = false
	cmd.SysProcAttr.AmbientCaps = a.AmbientCaps
}

// procSys is where the sysctls are read (tests point it elsewhere).
var procSys = "/proc/sys"

// UsernsAvailable reads the settings that refuse user namespaces and
// names the first that does. It cannot see every refusal (a security
// module may refuse the mount itself); ProbeHide runs the real thing.
func UsernsAvailable() error {
	read := func(p string) (int, bool) {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		return n, err == nil
	}
	if n, ok := read(procSys + "/user/max_user_namespaces"); ok && n == 0 {
		return fmt.Errorf("%w: sysctl user.max_user_namespaces is 0", ErrNoUserns)
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return fmt.Errorf("%w: kernel built without CONFIG_USER_NS", ErrNoUserns)
	}
	if os.Geteuid() == 0 {
		return nil // the two switches below bind unprivileged users only
	}
	if n, ok := read(procSys + "/kernel/unprivileged_userns_clone"); ok && n == 0 {
		return fmt.Errorf("%w: sysctl kernel.unprivileged_userns_clone is 0", ErrNoUserns)
	}
	if n, ok := read(procSys + "/kernel/apparmor_restrict_unprivileged_userns"); ok && n != 0 {
		return fmt.Errorf("%w: sysctl kernel.apparmor_restrict_unprivileged_userns is %d", ErrNoUserns, n)
	}
	return nil
}

// ProbeHide runs the wrapper (self, which must dispatch ExecArg to
// ExecMain) on a throw-away workspace with a hidden directory, in check
// mode: it succeeds only when the namespaces, the mask, the capability
// drop, Landlock and seccomp were all put in place and the hidden
// directory could not be listed. The error names what failed.
func ProbeHide(ctx context.Context, self string) error {
	if err := UsernsAvailable(); err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "parallax-hide-probe-")
	if err != nil {
		return fmt.Errorf("hide probe: %w", err)
	}
	defer os.RemoveAll(root)
	ws, tmp := filepath.Join(root, "ws"), filepath.Join(root, "tmp")
	hidden := filepath.Join(ws, ".parallax")
	for _, d := range []string{hidden, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("hide probe: %w", err)
		}
	}
	// The production shape: an isolated command (its own namespaces,
	// /proc, loopback, private /tmp) with its state hidden.
	spec := CommandSpec{Workspace: ws, TempDir: tmp, Hide: []string{hidden}, Isolate: true, Check: true}
	cmd, err := spec.Command(ctx, self, []string{"/bin/sh"}) // never run: check mode exits first
	if err != nil {
		return fmt.Errorf("hide probe: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Dir = ws // a command runs in its workspace; the caller's directory may be under the private /tmp
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%w: hide probe: %s (check the sysctls user.max_user_namespaces, "+
			"kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns)", ErrNoUserns, msg)
	}
	return nil
}

// hideDirs resolves each Hide entry: an existing directory, no symlink
// as its last component, inside one of the writable trees. It returns
// the resolved paths.
func (s CommandSpec) hideDirs() ([]string, error) {
	var trees []string
	for _, p := range append([]string{s.Workspace, s.TempDir}, s.Write...) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			trees = append(trees, real)
		}
	}
	out := make([]string, 0, len(s.Hide))
	for i, p := range s.Hide {
		st, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("hide[%d] %s: %w", i, p, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("hide[%d] %s is not a directory", i, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("hide[%d] %s: %w", i, p, err)
		}
		inside := false
		for _, t := range trees {
			inside = inside || (within(real, t) && real != t)
		}
		if !inside {
			return nil, fmt.Errorf("hide[%d] %s is not inside a writable tree", i, p)
		}
		out = append(out, real)
	}
	return out, nil
}

// mountMasks makes the mount tree private (nothing mounted here leaks
// back to the host's namespace) and covers each directory with an empty
// read-only tmpfs. Each target is opened without following symlinks and
// mounted on through its descriptor, so a directory swapped for a link
// after it was resolved is refused, not followed.
func mountMasks(dirs []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mount tree private: %w (%v)", err, ErrNoUserns)
	}
	return mountOn(dirs, "parallax-hidden", "tmpfs", maskFlags, maskData)
}

// dropCaps empties the calling thread's ambient, bounding, effective,
// permitted and inheritable sets, then reads them back. The thread must
// be the one that execs: capabilities are per thread.
func dropCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities back: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return errors.New("capabilities still held after the drop")
		}
	}
	if n, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, unix.CAP_SYS_ADMIN, 0, 0, 0); err != nil || n != 0 {
		return fmt.Errorf("CAP_SYS_ADMIN still in the bounding set (%v)", err)
	}
	return nil
}

// checkHidden is check mode's verdict: each hidden directory must be a
// mask, a read-only tmpfs that lists empty (what was there is out of
// sight, and nothing can be put there).
func checkHidden(dirs []string) error {
	for _, d := range dirs {
		var st unix.Statfs_t
		if err := unix.Statfs(d, &st); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		ents, err := os.ReadDir(d)
		if st.Type != unix.TMPFS_MAGIC || st.Flags&unix.ST_RDONLY == 0 || err != nil || len(ents) != 0 {
			return fmt.Errorf("%s is not masked (filesystem %#x, flags %#x, %d entries visible, %v)", d, st.Type, st.Flags, len(ents), err)
		}
	}
	return nil
}

// nsNames are the namespaces the wrapper must not share with its caller.
var nsNames = []string{"user", "mnt"}

// currentNS lists the calling process's user and mount namespaces.
func currentNS() ([]string, error) { return namespacesOf(nsNames) }

// ownNamespaces refuses to mount anything unless this process runs in a
// user and a mount namespace other than the caller's (outer, recorded by
// Command): a wrapper started without SetSysProcAttr, as root, would
// otherwise mount the masks in the engine's own namespace.
func ownNamespaces(outer []string) error { return ownNamespacesOf(outer, nsNames) }
