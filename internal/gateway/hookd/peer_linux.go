package hookd

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// samePeer checks that the process at the other end of c runs as this
// user (SO_PEERCRED). It is a first filter on both ends, not what trust
// rests on: a process of this user can run anything, the parallax binary
// too (a script that bound the socket, forked the answering child and
// exec'd parallax passed the check of the peer's /proc/PID/exe this
// package made before). The install's key is what trust rests on
// (auth.go).
func samePeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED) //nolint:gosec // a descriptor fits in int
	}); err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return fmt.Errorf("peer credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("peer runs as uid %d, not %d", cred.Uid, os.Getuid())
	}
	return nil
}
