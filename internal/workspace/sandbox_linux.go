//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// KernelProbe is what the sandbox checks ask of the kernel. HostProbe
// asks this machine; tests fill it with fakes.
type KernelProbe struct {
	// LandlockABI is landlock_create_ruleset(NULL, 0,
	// LANDLOCK_CREATE_RULESET_VERSION): the ABI version or an errno.
	LandlockABI func() (int, error)
	// SeccompMode is prctl(PR_GET_SECCOMP): 0 (none) or 2 (filtered), or
	// EINVAL on a kernel without seccomp.
	SeccompMode func() (int, error)
	// SeccompFilter is seccomp(SECCOMP_GET_ACTION_AVAIL, 0,
	// SECCOMP_RET_KILL_PROCESS): nil when filters can kill a process.
	SeccompFilter func() error
	// ReadFile reads a file under /proc/sys.
	ReadFile func(name string) ([]byte, error)
}

// HostProbe asks this kernel.
func HostProbe() KernelProbe {
	return KernelProbe{
		LandlockABI: func() (int, error) {
			r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
			if errno != 0 {
				return 0, errno
			}
			return int(r), nil
		},
		SeccompMode: func() (int, error) {
			r, _, errno := unix.Syscall(unix.SYS_PRCTL, unix.PR_GET_SECCOMP, 0, 0)
			if errno != 0 {
				return 0, errno
			}
			return int(r), nil
		},
		SeccompFilter: func() error {
			act := uint32(unix.SECCOMP_RET_KILL_PROCESS)
			_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&act)))
			if errno != 0 {
				return errno
			}
			return nil
		},
		ReadFile: os.ReadFile,
	}
}

// SandboxChecks reports what this kernel offers the agent sandbox
// (Landlock, seccomp, unprivileged user namespaces). A missing feature is
// a WARN: the sandbox is the own-agent mode's, and the gate works without
// it.
func SandboxChecks() []Check { return ProbeChecks(HostProbe()) }

// ProbeChecks turns what p reports into the landlock, seccomp and userns
// checks.
func ProbeChecks(p KernelProbe) []Check {
	return []Check{landlockCheck(p), seccompCheck(p), usernsCheck(p)}
}

// landlockNetABI is the first Landlock ABI with TCP bind/connect rules
// (Linux 6.7).
const landlockNetABI = 4

func landlockCheck(p KernelProbe) Check {
	c := landlockStatus(p)
	c.Name = "landlock"
	return c
}

func landlockStatus(p KernelProbe) Check {
	abi, err := p.LandlockABI()
	switch {
	case errors.Is(err, unix.ENOSYS):
		return warn("not available: this kernel has no Landlock (Linux 5.13+ with CONFIG_SECURITY_LANDLOCK)",
			"use a kernel with Landlock for the own-agent sandbox; the gate works without it")
	case errors.Is(err, unix.EOPNOTSUPP):
		return warn("not available: Landlock is built in but not enabled at boot",
			"add landlock to the lsm= kernel command line (see /sys/kernel/security/lsm)")
	case err != nil:
		return warn(fmt.Sprintf("not available: landlock_create_ruleset failed: %v", err),
			"the own-agent sandbox cannot confine files on this kernel")
	case abi < 1:
		return warn(fmt.Sprintf("not available: unexpected ABI version %d", abi), "check the kernel")
	case abi < landlockNetABI:
		return warn(fmt.Sprintf("ABI v%d: file rules only", abi),
			fmt.Sprintf("TCP rules need ABI v%d (Linux 6.7+); until then the sandbox cannot limit connections", landlockNetABI))
	}
	return ok(fmt.Sprintf("ABI v%d: file and TCP rules", abi))
}

func seccompCheck(p KernelProbe) Check {
	c := seccompStatus(p)
	c.Name = "seccomp"
	return c
}

func seccompStatus(p KernelProbe) Check {
	mode, err := p.SeccompMode()
	switch {
	case errors.Is(err, unix.EINVAL):
		return warn("not available: this kernel has no seccomp (CONFIG_SECCOMP)",
			"use a kernel with seccomp filters for the own-agent sandbox")
	case err != nil:
		return warn(fmt.Sprintf("prctl(PR_GET_SECCOMP) failed: %v", err), "check the kernel")
	}
	if err := p.SeccompFilter(); err != nil {
		return warn(fmt.Sprintf("filter mode not usable: seccomp(SECCOMP_GET_ACTION_AVAIL) failed: %v", err),
			"use a kernel with seccomp filters (4.14+); inside a container, allow the seccomp system call")
	}
	if mode == unix.SECCOMP_MODE_FILTER {
		return ok("filters available (this process already runs under one, e.g. a container's; filters stack)")
	}
	return ok("filters available")
}

func usernsCheck(p KernelProbe) Check {
	c := usernsStatus(p)
	c.Name = "userns"
	return c
}

// The /proc/sys switches for unprivileged user namespaces.
const (
	maxUserNS       = "/proc/sys/user/max_user_namespaces"
	usernsClone     = "/proc/sys/kernel/unprivileged_userns_clone"             // Debian, older Ubuntu
	apparmorUserNS  = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" // Ubuntu 23.10+
	usernsFixSysctl = "allow them (sysctl %s=%s); the sandbox can then isolate the network namespace"
)

func usernsStatus(p KernelProbe) Check {
	n, err := readProcInt(p, maxUserNS)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return warn("not available: this kernel has no user namespaces", "use a kernel with CONFIG_USER_NS")
	case err != nil:
		return warn(err.Error(), "check "+maxUserNS)
	case n == 0:
		return warn("disabled: max_user_namespaces is 0", fmt.Sprintf(usernsFixSysctl, "user.max_user_namespaces", "10000"))
	}
	if v, err := readProcInt(p, usernsClone); err == nil && v == 0 {
		return warn("disabled for unprivileged users: unprivileged_userns_clone is 0",
			fmt.Sprintf(usernsFixSysctl, "kernel.unprivileged_userns_clone", "1"))
	}
	if v, err := readProcInt(p, apparmorUserNS); err == nil && v != 0 {
		return warn("restricted by AppArmor: apparmor_restrict_unprivileged_userns is "+strconv.Itoa(v),
			"give parallax an AppArmor profile that allows userns, or "+
				fmt.Sprintf(usernsFixSysctl, "kernel.apparmor_restrict_unprivileged_userns", "0"))
	}
	return ok(fmt.Sprintf("unprivileged user namespaces allowed (at most %d)", n))
}

// readProcInt reads one integer from a /proc/sys file.
func readProcInt(p KernelProbe, name string) (int, error) {
	b, err := p.ReadFile(name)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", name, err)
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("read %s: want an integer, got %.20q", name, strings.TrimSpace(string(b)))
	}
	return v, nil
}
