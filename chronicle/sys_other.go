//go:build !linux && !darwin

package chronicle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// statExtra: without device, inode and ctime the stat cache and
// same-file checks cannot work, so snapshots fail closed here.
func statExtra(fi fs.FileInfo) (dev, ino uint64, ctimeNS int64, err error) {
	return 0, 0, 0, fmt.Errorf("stat %s: %w", fi.Name(), errors.ErrUnsupported)
}

func cloneFile(_, _ *os.File) error { return errors.ErrUnsupported }

func syncObjects(_ string, files []string) error { return fsyncEach(files) }
