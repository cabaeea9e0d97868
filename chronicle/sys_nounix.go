//go:build !unix

package chronicle

import (
	"errors"
	"fmt"
	"os"
)

const openReadFlags = os.O_RDONLY

func lockFile(path string, _ bool) (func(), error) {
	return nil, fmt.Errorf("lock %s: %w", path, errors.ErrUnsupported)
}

func isCrossDevice(error) bool { return false }
