package workspace

import (
	"os"
	"syscall"
)

// allocated reports whether every byte of the file has its block: a
// sparse journal (cut, or written by an older version with a hole) would
// need new blocks to take a raise.
func allocated(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || sys.Blocks*512 >= st.Size()
}
