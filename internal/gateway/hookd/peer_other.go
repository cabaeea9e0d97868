//go:build !linux

package hookd

import (
	"errors"
	"net"
)

// samePeer cannot check a peer's credentials here: no daemon is used.
func samePeer(*net.UnixConn) error {
	return errors.New("peer credentials are not supported on this system")
}
