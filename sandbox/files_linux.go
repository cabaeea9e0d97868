//go:build linux

package sandbox

import (
	"fmt"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// modifyRights are what a Modify directory grants beneath it: make and
// remove entries of every kind but devices and sockets, rename across
// directories (REFER), read and write files; never execute.
const modifyRights = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSReadDir | ll.AccessFSWriteFile |
	ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir |
	ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSRefer)

// ConfineFiles restricts the calling process for good: Landlock with
// only the spec's rules (the strictest configuration the kernel has,
// never best effort), no_new_privs, and the agent's seccomp filter (no
// exec, no new process, no socket). It must run before the operation
// reads anything it was not handed.
func ConfineFiles(s FilesSpec) error {
	k := Support()
	if err := k.Usable(); err != nil {
		return err
	}
	cfg, err := landlockConfig(k.LandlockABI)
	if err != nil {
		return err
	}
	var grants []grant
	add := func(paths []string, rights landlock.AccessFSSet, what string, dirOnly bool) error {
		for _, p := range paths {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("files sandbox: %s path %q is not clean and absolute", what, p)
			}
			grants = append(grants, grant{path: p, rights: rights, dirOnly: dirOnly})
		}
		return nil
	}
	if err := add(s.Read, rightReadFile|rightReadDir, "read", false); err != nil {
		return err
	}
	if err := add(s.Modify, modifyRights, "modify", true); err != nil {
		return err
	}
	if err := restrictLandlock(cfg, grants); err != nil {
		return fmt.Errorf("files sandbox: %w", err)
	}
	if err := installSeccomp(filterKind{agent: true}); err != nil {
		return fmt.Errorf("files sandbox: %w", err)
	}
	return nil
}
