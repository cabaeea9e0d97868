//go:build !linux

package hookd

import (
	"errors"
	"net"
)

// samePeer cannot check a peer's credentials here: no daemon is used.
func samePeer(*net.UnixConn) (int, error) {
	return 0, errors.New("peer credentials are not supported on this system")
}

// runsBinary cannot tell here.
func runsBinary(int, Identity) bool { return false }
