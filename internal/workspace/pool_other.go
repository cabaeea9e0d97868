//go:build !linux

package workspace

import "errors"

// statID: kept workspaces are checked by inode and change time, which
// this system's stat does not give the same way; every Open is fresh.
func statID(string, bool) (fileID, error) {
	return fileID{}, errors.New("workspace pool: not supported on this system")
}
