//go:build linux

package sandbox

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Access rights used below (go-landlock names them only as bits).
const (
	rightReadFile = landlock.AccessFSSet(ll.AccessFSReadFile)
	rightReadDir  = landlock.AccessFSSet(ll.AccessFSReadDir)
	rightExecute  = landlock.AccessFSSet(ll.AccessFSExecute)
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

// pathRule grants rights on one path, keeping only what the config
// handles and, for a non-directory, what a file can carry.
func pathRule(cfg landlock.Config, rights landlock.AccessFSSet, path string, dir bool) landlock.Rule {
	rights &= cfg.HandledAccessFS
	if !dir {
		rights &= fileRights
	}
	return landlock.PathAccess(rights, path)
}
