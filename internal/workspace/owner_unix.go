//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports the owner of st and whether it is this process's
// effective user; known is false where the owner cannot be read.
func ownedByMe(st fs.FileInfo) (uid int, mine, known bool) {
	s, isStat := st.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, false, false
	}
	return int(s.Uid), int(s.Uid) == os.Geteuid(), true
}
