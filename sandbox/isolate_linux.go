//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// isolateCloneFlags are the namespaces an isolated command gets besides
// the user and mount ones: its own PID namespace (everything it starts
// dies with it), network (a loopback interface and nothing else), IPC
// and UTS.
const isolateCloneFlags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// isolateNS are the namespaces the wrapper of an isolated command must
// not share with its caller.
var isolateNS = []string{"user", "mnt", "pid_for_children", "net", "ipc", "uts"}

// proxyFD is the descriptor on which the wrapper hands the engine its
// listening proxy socket.
const proxyFD = 3

// Private mounts of an isolated command.
const (
	shmData  = "mode=1777,size=64m"
	runData  = "mode=0,size=4k"
	scratchD = "mode=0700,size=4k"
)

// isolate builds the command's world, inside its own namespaces and
// before any capability is dropped. Order matters: the private /tmp is
// mounted first (the workspace and the home are re-attached inside it
// when they live under /tmp), then the secret files are covered, then
// the hidden directories (which may lie inside the re-attached trees),
// then the read-only binds and the cache overlays.
func (s CommandSpec) isolate() error {
	if err := ownNamespacesOf(s.OuterNS, isolateNS); err != nil {
		return err
	}
	if err := joinCgroups(s.Cgroups); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mount tree private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a /proc of the command's own: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	if s.Proxy != 0 {
		if err := handOverProxy(s.Proxy, s.Forward); err != nil {
			return err
		}
	}
	if err := s.privateTmp(); err != nil {
		return err
	}
	if err := mountOverlays(s.Overlays); err != nil {
		return err
	}
	if err := maskFiles(s.MaskFiles); err != nil {
		return err
	}
	hide := append([]string{"/run"}, s.Hide...)
	var dirs []string
	for i, d := range hide {
		st, err := os.Lstat(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("hide[%d] %s: %w", i, d, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("hide[%d] %s is not a directory", i, d)
		}
		dirs = append(dirs, d)
	}
	if err := mountOn(dirs, "parallax-hidden", "tmpfs", maskFlags, maskData); err != nil {
		return err
	}
	return bindReadOnly(s.ReadOnly)
}

// ownNamespacesOf refuses to go on unless this process runs in
// namespaces other than the caller's (outer, recorded by Command).
func ownNamespacesOf(outer, names []string) error {
	if len(outer) != len(names) {
		return fmt.Errorf("sandbox spec lacks the caller's namespaces (outer_ns); build it with CommandSpec.Command")
	}
	for i, ns := range names {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return fmt.Errorf("read own %s namespace: %w", ns, err)
		}
		if l == outer[i] {
			return fmt.Errorf("the sandbox needs a %s namespace of its own: the wrapper was started "+
				"without CommandSpec.SetSysProcAttr", ns)
		}
	}
	return nil
}

// namespacesOf lists the calling process's namespaces of the given names.
func namespacesOf(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, ns := range names {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return nil, fmt.Errorf("read own %s namespace: %w", ns, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// loopbackUp brings up the only interface of the new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	return nil
}

// handOverProxy listens on 127.0.0.1:port inside the command's network
// namespace, and on each forward address, and sends the listening
// sockets (the proxy's first) to the engine over proxyFD in one message;
// the wrapper keeps no copy. A socket belongs to the namespace it was
// made in, so the engine accepts the command's connections from outside.
func handOverProxy(port int, forward []string) error {
	addrs := append([]string{fmt.Sprintf("127.0.0.1:%d", port)}, forward...)
	fds := make([]int, 0, len(addrs))
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("egress listener %s: %w", a, err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return fmt.Errorf("egress listener %s: %w", a, err)
		}
		defer f.Close()
		fds = append(fds, int(f.Fd()))
	}
	if err := unix.Sendmsg(proxyFD, []byte{'L'}, unix.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("hand the egress listeners to the engine: %w", err)
	}
	unix.Close(proxyFD)
	return nil
}

// privateTmp mounts the command's temp directory on /tmp and /var/tmp and
// an empty tmpfs on /dev/shm: what other programs left in the host's
// /tmp (their sockets among it) is out of reach, and what the command
// writes there stays its own. A workspace or home under /tmp is cloned
// before and attached again at its own path.
func (s CommandSpec) privateTmp() error {
	type keep struct {
		path string
		fd   int
	}
	var kept []keep
	defer func() {
		for _, k := range kept {
			unix.Close(k.fd)
		}
	}()
	seen := map[string]bool{}
	for _, p := range s.reattach() {
		if seen[p] {
			continue
		}
		seen[p] = true
		fd, err := openTree(p)
		if err != nil {
			return fmt.Errorf("keep %s across the private /tmp: %w", p, err)
		}
		kept = append(kept, keep{p, fd})
	}
	if len(kept) > 0 {
		if err := os.MkdirAll(s.TempDir+"/"+tmpSub, 0o700); err != nil {
			return fmt.Errorf("private /tmp: %w", err)
		}
	}
	src, err := openTree(s.TempDir)
	if err != nil {
		return fmt.Errorf("private /tmp from %s: %w", s.TempDir, err)
	}
	defer unix.Close(src)
	for _, dst := range []string{"/tmp", "/var/tmp"} {
		if err := moveTreeTo(src, dst); err != nil {
			return fmt.Errorf("private %s: %w", dst, err)
		}
	}
	for _, k := range kept {
		if err := os.MkdirAll(k.path, 0o700); err != nil {
			return fmt.Errorf("attach %s again: %w", k.path, err)
		}
		if err := moveTreeTo(k.fd, k.path); err != nil {
			return fmt.Errorf("attach %s again: %w", k.path, err)
		}
	}
	if st, err := os.Lstat("/dev/shm"); err == nil && st.IsDir() {
		if err := unix.Mount("parallax-shm", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, shmData); err != nil {
			return fmt.Errorf("private /dev/shm: %w", err)
		}
	}
	return nil
}

// tmpSub is the directory inside the private /tmp that is writable when
// /tmp holds trees attached again (a workspace or home under /tmp): a
// Landlock grant on /tmp would reach into them.
const tmpSub = ".parallax-tmp"

// tmpWritable lists the private temp trees the command may write: /tmp
// and /var/tmp whole, or only /tmp/.parallax-tmp where /tmp holds
// trees attached again.
func (s CommandSpec) tmpWritable() []string {
	if len(s.reattach()) > 0 {
		return []string{"/tmp/" + tmpSub}
	}
	return []string{"/tmp", "/var/tmp"}
}

// TempDirInside is what TMPDIR must be inside an isolated command.
func (s CommandSpec) TempDirInside() string { return s.tmpWritable()[0] }

// reattach lists what lives under /tmp or /var/tmp and must stay
// visible there: the workspace, the home and what Keep names (an exact
// grant outside them under /tmp is not made: that /tmp is the command's
// own).
func (s CommandSpec) reattach() []string {
	var out []string
	for _, p := range append([]string{s.Workspace, s.Home}, s.Keep...) {
		if p == "" {
			continue
		}
		for _, t := range []string{"/tmp", "/var/tmp"} {
			if within(p, t) && p != t {
				out = append(out, p)
			}
		}
	}
	return out
}

// openTree clones the mount tree at p (no symlink on the way) into a
// detached mount held by the returned descriptor.
func openTree(p string) (int, error) {
	pfd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return -1, err
	}
	defer unix.Close(pfd)
	return unix.OpenTree(pfd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
}

// moveTreeTo attaches a clone of the detached tree src at dst (no symlink
// on the way to dst).
func moveTreeTo(src int, dst string) error {
	clone, err := unix.OpenTree(src, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return err
	}
	defer unix.Close(clone)
	dfd, err := unix.Openat2(unix.AT_FDCWD, dst, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	return unix.MoveMount(clone, "", dfd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// mountOn mounts a new filesystem on each directory, through a
// descriptor opened without following symlinks: a directory swapped for
// a link (or a file) after it was resolved is refused, not followed.
func mountOn(paths []string, source, fstype string, flags uintptr, data string) error {
	for _, p := range paths {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
			Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
		})
		if err != nil {
			return fmt.Errorf("open %s to cover it: %w", p, err)
		}
		err = unix.Mount(source, fmt.Sprintf("/proc/self/fd/%d", fd), fstype, flags, data)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("cover %s: %w", p, err)
		}
	}
	return nil
}

// maskFiles covers each existing secret file, and each socket, with an
// empty file nobody can read (mode 0; the command holds no capability to
// override it; a connect to it is refused).
// The empty file lives on a scratch tmpfs mounted on /run, which the
// /run mask covers afterwards.
func maskFiles(files []string) error {
	var targets []int
	defer func() {
		for _, fd := range targets {
			unix.Close(fd)
		}
	}()
	for _, p := range files {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
			Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
		})
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) {
			continue // missing, or a link: its target is judged under its own name
		}
		if err != nil {
			return fmt.Errorf("open secret %s to cover it: %w", p, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			unix.Close(fd)
			if err != nil {
				return fmt.Errorf("secret %s: %w", p, err)
			}
			continue
		}
		targets = append(targets, fd)
	}
	if len(targets) == 0 {
		return nil
	}
	if err := unix.Mount("parallax-scratch", "/run", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, scratchD); err != nil {
		return fmt.Errorf("scratch mount for the secret masks: %w", err)
	}
	const empty = "/run/.parallax-masked"
	if err := os.WriteFile(empty, nil, 0o000); err != nil {
		return fmt.Errorf("secret mask: %w", err)
	}
	if err := os.Chmod(empty, 0); err != nil {
		return fmt.Errorf("secret mask: %w", err)
	}
	for _, fd := range targets {
		if err := unix.Mount(empty, fmt.Sprintf("/proc/self/fd/%d", fd), "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("cover a secret file: %w", err)
		}
	}
	return nil
}

// bindReadOnly binds each existing path over itself, read-only.
func bindReadOnly(paths []string) error {
	for _, p := range paths {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
			Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
		})
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open %s to make it read-only: %w", p, err)
		}
		target := fmt.Sprintf("/proc/self/fd/%d", fd)
		err = unix.Mount(target, target, "", unix.MS_BIND|unix.MS_REC, "")
		if err == nil {
			// The bind is a new mount on top: reopen the path to reach it.
			unix.Close(fd)
			fd, err = unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
				Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
			})
			if err == nil {
				attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
				err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr)
			}
		}
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// setLimits applies the command's resource limits (soft and hard).
func setLimits(l Limits) error {
	l = l.WithDefaults()
	for _, r := range []struct {
		name string
		res  int
		v    uint64
	}{
		{"memory", unix.RLIMIT_DATA, l.MemoryBytes},
		{"processes", unix.RLIMIT_NPROC, l.Processes},
		{"file size", unix.RLIMIT_FSIZE, l.FileSizeBytes},
		{"open files", unix.RLIMIT_NOFILE, l.OpenFiles},
		{"core dumps", unix.RLIMIT_CORE, 0},
	} {
		var cur unix.Rlimit
		if err := unix.Getrlimit(r.res, &cur); err != nil {
			return fmt.Errorf("read the %s limit: %w", r.name, err)
		}
		v := r.v
		if cur.Max < v {
			v = cur.Max // never raise: a lower limit from outside stays
		}
		if err := unix.Setrlimit(r.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("set the %s limit: %w", r.name, err)
		}
	}
	return nil
}

// isolatedRules are the writable grants of an isolated command: the
// workspace and its private temp directories whole, each granted file
// exactly, directory creation and removal where named.
func (s CommandSpec) isolatedWrites(w *ruleSet) error {
	for _, p := range append([]string{s.Workspace}, s.tmpWritable()...) {
		if err := w.grantWrite(p, true); err != nil {
			return err
		}
	}
	if err := w.grantWrite("/dev/shm", false); err != nil {
		return err
	}
	for _, f := range s.WriteFiles {
		w.add(grant{path: f, rights: fileWriteRights, optional: true, fileOnly: true})
	}
	for _, d := range s.MakeDirs {
		w.add(grant{path: d, rights: rightMakeDir | readRights, optional: true, dirOnly: true})
	}
	for _, d := range s.RemoveTrees {
		w.add(grant{path: d, rights: rightRemove | readRights, optional: true, dirOnly: true})
	}
	for _, o := range s.Overlays {
		if err := w.grantWrite(o.Lower, false); err != nil {
			return err
		}
	}
	return nil
}

// checkIsolatedPaths refuses grants that would name the whole of a place
// no single command may change: the root, /tmp-like trees of the host,
// or a directory holding the workspace.
func (s CommandSpec) checkIsolatedPaths() error {
	for _, list := range [][]string{s.WriteFiles, s.MakeDirs, s.RemoveTrees} {
		for _, p := range list {
			if p == "/" || within(s.Workspace, p) {
				return fmt.Errorf("sandbox spec grants %s, which holds the workspace", p)
			}
			if strings.ContainsRune(p, 0) {
				return fmt.Errorf("sandbox spec path %q holds a NUL byte", p)
			}
		}
	}
	return nil
}
