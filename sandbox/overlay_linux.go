//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// overlayCaps is what the wrapper keeps, beside hideCaps, to mount
// overlays: overlayfs makes its work/work directory with mode 0 and
// works in it with the mounter's credentials, which a mounter whose uid
// is mapped to itself (not to root) can do only with CAP_DAC_OVERRIDE
// in its user namespace. dropCaps removes it with the rest before the
// command runs; only the overlay's own copy-ups keep using it, on the
// caller's own files (the only ones mapped in the namespace).
var overlayCaps = []uintptr{unix.CAP_DAC_OVERRIDE}

// overlayFlags and overlayOpts are how each overlay is mounted. userxattr
// is what overlayfs needs in a user namespace (its bookkeeping goes to
// user.overlay.* xattrs). The rest pins, whatever the module parameters
// say, the features that would make overlayfs act on xattrs found in
// Upper: redirect_dir=nofollow (never follow a redirect to another lower
// path; "off" conflicts with userxattr), metacopy=off (never take a
// file's data from elsewhere), index=off and nfs_export=off (no index of
// origins to trust). With them, nothing planted in Upper can make the
// merged view show anything but Upper's own files over Lower's.
const (
	overlayFlags = unix.MS_NOSUID | unix.MS_NODEV
	overlayOpts  = "userxattr,redirect_dir=nofollow,metacopy=off,index=off,nfs_export=off"
)

// overlayDirMode is the mode of every directory PrepareOverlays creates,
// a missing Lower and its missing parents included: the XDG base
// directory spec asks 0700 for ~/.cache, the toolchains do not need
// anyone else to read their caches, and a directory made too narrow can
// be widened by its owner, while one made too wide may already have been
// written to by someone else.
const overlayDirMode = 0o700

// overlayFSMagic is overlayfs's statfs type.
const overlayFSMagic = 0x794c7630

// mountOverlays mounts each overlay on its Lower path, so the command
// sees the merged view where the cache usually is. It must run inside
// the command's own user and mount namespace (the wrapper checks
// ownNamespaces first); it makes the mount tree private itself, so it
// may come before mountMasks (an Upper under a hidden directory is then
// still reachable). Each layer is opened without following any symlink
// and passed to the kernel by descriptor; a layer that is missing, a
// symlink, or an Upper or Work not the caller's, fails the whole call,
// naming the overlay.
func mountOverlays(ovs []Overlay) error {
	if len(ovs) == 0 {
		return nil
	}
	if err := validateOverlays(ovs); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mount tree private: %w (%v)", err, ErrNoUserns)
	}
	for i, o := range ovs {
		if err := mountOverlay(i, o); err != nil {
			return err
		}
	}
	return nil
}

// mountOverlay mounts one overlay and checks that Lower now shows it.
func mountOverlay(i int, o Overlay) error {
	fds, err := openOverlay(i, o, false)
	if err != nil {
		return err
	}
	defer closeFDs(fds)
	data := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s,%s", fdPath(fds[0]), fdPath(fds[1]), fdPath(fds[2]), overlayOpts)
	if err := unix.Mount("parallax-cache", fdPath(fds[0]), "overlay", overlayFlags, data); err != nil {
		hint := ""
		if errors.Is(err, unix.EACCES) && os.Geteuid() != 0 {
			hint = " (an unprivileged mounter needs CAP_DAC_OVERRIDE in its user namespace)"
		}
		return fmt.Errorf("%s: mount: %w%s", o.name(i), err, hint)
	}
	fd, err := openDir(o.Lower, false)
	if err != nil {
		return fmt.Errorf("%s: reopen after mount: %w", o.name(i), err)
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fmt.Errorf("%s: statfs after mount: %w", o.name(i), err)
	}
	if st.Type != overlayFSMagic {
		return fmt.Errorf("%s: lower shows filesystem %#x after mount, not the overlay", o.name(i), st.Type)
	}
	return nil
}

// PrepareOverlays is called by the engine, outside any namespace, before
// it starts a command with overlays. It creates whatever is missing of
// Lower, Upper and Work (mode overlayDirMode, parents included) so a
// fresh home works, and refuses, naming the overlay: a path that is not
// clean and absolute, paths of one or two overlays that overlap, a
// symlink anywhere in a path (refused, not followed: callers resolve
// the home directory once and build the paths under it), a layer that
// is not a directory, an Upper or Work not owned by the caller or
// writable by group or others, and an Upper and Work on two
// filesystems.
func PrepareOverlays(ovs []Overlay) error {
	if err := validateOverlays(ovs); err != nil {
		return err
	}
	for i, o := range ovs {
		fds, err := openOverlay(i, o, true)
		if err != nil {
			return err
		}
		closeFDs(fds)
	}
	return nil
}

// name is how errors name the overlay.
func (o Overlay) name(i int) string {
	return fmt.Sprintf("overlay[%d] (lower %s)", i, o.Lower)
}

// validateOverlays checks the paths' form: clean and absolute, and no
// path of any overlay inside another (overlayfs refuses overlapping
// layers of one mount; across mounts, one overlay would land inside
// another's layers).
func validateOverlays(ovs []Overlay) error {
	type layer struct{ name, path string }
	var seen []layer
	for i, o := range ovs {
		for _, l := range []layer{{"lower", o.Lower}, {"upper", o.Upper}, {"work", o.Work}} {
			if !filepath.IsAbs(l.path) || filepath.Clean(l.path) != l.path {
				return fmt.Errorf("%s: %s %q is not a clean absolute path", o.name(i), l.name, l.path)
			}
			l.name = fmt.Sprintf("overlay[%d] %s %s", i, l.name, l.path)
			for _, s := range seen {
				if within(l.path, s.path) || within(s.path, l.path) {
					return fmt.Errorf("%s overlaps %s", l.name, s.name)
				}
			}
			seen = append(seen, l)
		}
	}
	return nil
}

// openOverlay opens Lower, Upper and Work (creating what is missing when
// create is set) and checks them; the caller closes the descriptors.
func openOverlay(i int, o Overlay, create bool) (fds [3]int, err error) {
	fds = [3]int{-1, -1, -1}
	for j, p := range []string{o.Lower, o.Upper, o.Work} {
		if fds[j], err = openDir(p, create); err != nil {
			closeFDs(fds)
			return fds, fmt.Errorf("%s: open %s: %w", o.name(i), p, describeOpenErr(err))
		}
	}
	if err := checkLayers(fds); err != nil {
		closeFDs(fds)
		return fds, fmt.Errorf("%s: %w", o.name(i), err)
	}
	return fds, nil
}

// checkLayers wants Upper and Work owned by the caller, writable by
// nobody else, and on one filesystem.
func checkLayers(fds [3]int) error {
	var st [3]unix.Stat_t
	for j, fd := range fds {
		if err := unix.Fstat(fd, &st[j]); err != nil {
			return fmt.Errorf("stat layer %d: %w", j, err)
		}
	}
	euid := uint32(os.Geteuid())
	for j, name := range []string{"upper", "work"} {
		s := st[j+1]
		if s.Uid != euid {
			return fmt.Errorf("%s is owned by uid %d, not by the caller (uid %d)", name, s.Uid, euid)
		}
		if s.Mode&0o022 != 0 {
			return fmt.Errorf("%s has mode %#o: writable by group or others", name, s.Mode&0o7777)
		}
	}
	if st[1].Dev != st[2].Dev {
		return errors.New("upper and work are on different filesystems")
	}
	return nil
}

// openDir opens p as an O_PATH directory descriptor without following a
// symlink in any component. With create, it makes each missing component
// from its parent's descriptor, so a component swapped for a symlink
// meanwhile is refused, not followed.
func openDir(p string, create bool) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	if err == nil || !create || !errors.Is(err, unix.ENOENT) || p == "/" {
		return fd, err
	}
	parent, err := openDir(filepath.Dir(p), true)
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	name := filepath.Base(p)
	if err := unix.Mkdirat(parent, name, overlayDirMode); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, fmt.Errorf("create %s: %w", p, err)
	}
	return unix.Openat2(parent, name, &how)
}

// describeOpenErr says in words what openat2 refused.
func describeOpenErr(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return fmt.Errorf("a symlink in the path (refused, not followed): %w", err)
	case errors.Is(err, unix.ENOTDIR):
		return fmt.Errorf("not a directory: %w", err)
	}
	return err
}

func fdPath(fd int) string { return fmt.Sprintf("/proc/self/fd/%d", fd) }

func closeFDs(fds [3]int) {
	for _, fd := range fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
