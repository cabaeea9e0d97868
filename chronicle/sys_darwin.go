package chronicle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

func statExtra(fi fs.FileInfo) (dev, ino uint64, ctimeNS int64, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, fmt.Errorf("no stat data for %s", fi.Name())
	}
	return uint64(st.Dev), st.Ino, st.Ctimespec.Nano(), nil //nolint:gosec // bit pattern
}

// cloneFile: clonefile(2) works on paths, not open files; not used yet.
func cloneFile(_, _ *os.File) error { return errors.ErrUnsupported }

// syncObjects fsyncs each new object (no syncfs on macOS).
func syncObjects(_ string, files []string) error { return fsyncEach(files) }
