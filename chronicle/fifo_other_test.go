//go:build !unix

package chronicle

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }
