//go:build linux && !amd64 && !arm64

package sandbox

const (
	auditArch     = 0
	x32Bit        = 0
	archSupported = false
)

var forkSyscalls []uint32

var archPrivileged []uint32
