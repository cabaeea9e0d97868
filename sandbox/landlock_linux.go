//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Access rights used below (go-landlock names them only as bits).
const (
	rightReadFile = landlock.AccessFSSet(ll.AccessFSReadFile)
	rightReadDir  = landlock.AccessFSSet(ll.AccessFSReadDir)
	rightExecute  = landlock.AccessFSSet(ll.AccessFSExecute)
	rightMakeDir  = landlock.AccessFSSet(ll.AccessFSMakeDir)
	rightRemove   = landlock.AccessFSSet(ll.AccessFSRemoveDir | ll.AccessFSRemoveFile)
	// fileWriteRights are what an exactly granted file gets: read, write,
	// truncate (never execute: a granted file is data).
	fileWriteRights = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate)
	// fileRights are the rights the kernel accepts on a non-directory.
	fileRights = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile |
		ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)
)

// landlockConfig is the strictest configuration the kernel's ABI
// supports, exactly: no best-effort mode, so go-landlock can never fall
// back to enforcing nothing. ABIs above what go-landlock knows use its
// newest preset (a subset of what the kernel handles).
func landlockConfig(abi int) (landlock.Config, error) {
	presets := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4,
		landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	if abi < MinLandlockABI {
		return landlock.Config{}, fmt.Errorf("%w: landlock ABI %d, need >= %d", ErrUnsupported, abi, MinLandlockABI)
	}
	if abi > len(presets) {
		abi = len(presets)
	}
	return presets[abi-1], nil
}

// grant is one path rule: rights on a path with no symlink in it.
// Optional grants (entries met while walking) are skipped when the path
// has vanished or become a symlink since; required ones fail.
type grant struct {
	path     string
	rights   landlock.AccessFSSet
	optional bool
	fileOnly bool // skipped unless the path is a non-directory
	dirOnly  bool // skipped unless the path is a directory
}

// restrictLandlock builds the ruleset and enforces it on every thread.
// go-landlock creates the ruleset; the path rules are added here, from
// descriptors opened with RESOLVE_NO_SYMLINKS, because a path checked
// when the rules were planned may have been swapped for a symlink (to a
// denied directory) before the rule is added: such a path is refused,
// never followed. The kind of file (directory or not) comes from the
// same descriptor.
func restrictLandlock(cfg landlock.Config, grants []grant) error {
	fd, flags, err := cfg.NewRulesetFD()
	if err != nil {
		return fmt.Errorf("create landlock ruleset %v: %w", cfg, err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock ruleset %v restricts nothing", cfg)
	}
	defer unix.Close(fd)
	// With cgo, libpsx lists /proc/PID/task right after enforcing on each
	// thread and kills the process if it cannot (go-landlock issue 39):
	// listing our own threads is all this grants.
	grants = append(grants, grant{path: fmt.Sprintf("/proc/%d/task", os.Getpid()), rights: rightReadDir})
	for _, g := range grants {
		if err := addGrant(fd, cfg, g); err != nil {
			return err
		}
	}
	if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := ll.AllThreadsLandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforce landlock %v: %w", cfg, err)
	}
	return nil
}

func addGrant(ruleset int, cfg landlock.Config, g grant) error {
	pfd, err := unix.Openat2(unix.AT_FDCWD, g.path, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		if g.optional && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP)) {
			return nil
		}
		return fmt.Errorf("landlock rule for %s: %w", g.path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", g.path, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if (g.fileOnly && isDir) || (g.dirOnly && !isDir) {
		return nil // the kind changed since planning: grant nothing
	}
	rights := g.rights & cfg.HandledAccessFS
	if !isDir {
		rights &= fileRights
	}
	if rights == 0 {
		return nil
	}
	attr := ll.PathBeneathAttr{ParentFd: pfd, AllowedAccess: uint64(rights)}
	if err := ll.LandlockAddPathBeneathRule(ruleset, &attr, 0); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", g.path, err)
	}
	return nil
}
