package hookd

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// samePeer checks that the process at the other end of c runs as this
// user (SO_PEERCRED) and returns its pid.
func samePeer(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED) //nolint:gosec // a descriptor fits in int
	}); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return 0, fmt.Errorf("peer credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, fmt.Errorf("peer runs as uid %d, not %d", cred.Uid, os.Getuid())
	}
	return int(cred.Pid), nil
}

// runsBinary reports whether process pid runs the executable of id
// (same device and inode, through /proc/PID/exe).
func runsBinary(pid int, id Identity) bool {
	got, err := FileIdentity("/proc/" + strconv.Itoa(pid) + "/exe")
	return err == nil && got.Dev == id.Dev && got.Ino == id.Ino
}
