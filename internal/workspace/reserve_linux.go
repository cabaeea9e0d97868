package workspace

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// journalReserve is the room kept for the taint journal beyond its end:
// a few dozen raises.
const journalReserve = 16 << 10

// reserveJournal makes sure the taint journal at path has journalReserve
// bytes allocated past its end (fallocate, KEEP_SIZE): appends into them
// need no new block, so they still land when the filesystem is full. Best
// effort: a filesystem without fallocate just has no reserve.
func reserveJournal(path string) {
	if st, err := os.Stat(path); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blocks*512 >= st.Size()+journalReserve {
			return
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600) //nolint:gosec // the workspace's own state file
	if err != nil {
		return
	}
	defer f.Close()
	reserveFile(f)
}

// reserveFile allocates journalReserve bytes past the end of f.
func reserveFile(f *os.File) {
	st, err := f.Stat()
	if err != nil {
		return
	}
	_ = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, st.Size(), journalReserve) //nolint:gosec // a file descriptor fits in int
}
