//go:build linux

package sandbox

import (
	"fmt"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// FilesSpec is the confinement of one file operation run in a process of
// its own (the files executor's helper): Landlock rules on exactly the
// paths its decided plan names and nothing else, so whatever the
// operation's code resolves at run time, the kernel lets it touch only
// what was decided. Paths must be absolute and clean; each must exist
// and hold no symbolic link when the rules are added (a rule on a path
// swapped since is refused, never followed).
type FilesSpec struct {
	// Read are files or directory trees the operation reads.
	Read []string `json:"read,omitempty"`
	// Modify are directories in which the operation creates, replaces,
	// renames or removes entries, and reads and writes the files below
	// (a write replaces its file through a temporary one beside it).
	Modify []string `json:"modify,omitempty"`
	// Write are existing files written in place (an append).
	Write []string `json:"write,omitempty"`
}

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
	add := func(paths []string, rights landlock.AccessFSSet, what string, dirOnly, fileOnly bool) error {
		for _, p := range paths {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				return fmt.Errorf("files sandbox: %s path %q is not clean and absolute", what, p)
			}
			grants = append(grants, grant{path: p, rights: rights, dirOnly: dirOnly, fileOnly: fileOnly})
		}
		return nil
	}
	if err := add(s.Read, rightReadFile|rightReadDir, "read", false, false); err != nil {
		return err
	}
	if err := add(s.Modify, modifyRights, "modify", true, false); err != nil {
		return err
	}
	if err := add(s.Write, fileWriteRights, "write", false, true); err != nil {
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
