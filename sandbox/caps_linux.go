//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// maxCap bounds the bounding-set walk when cap_last_cap cannot be read;
// the walk stops earlier, at the kernel's first EINVAL.
const maxCap = 63

// capSets are the five capability sets of a thread, as
// /proc/PID/task/TID/status prints them.
var capSets = []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}

// dropAllCaps empties the capability sets of every thread of the
// process: the bounding set (when the process may: it needs CAP_SETPCAP),
// the ambient set, then effective, permitted and inheritable. Linux keeps
// capabilities per thread, so each call runs on all threads at once
// (psx: libpsx with cgo, syscall.AllThreadsSyscall without), the way
// go-landlock enforces Landlock. It then reads every thread's sets back
// from /proc and fails unless each is empty; the bounding set may stay
// full only in a process that never held CAP_SETPCAP, which can gain no
// capability from it: it cannot exec or enter a user namespace once its
// seccomp filter is in place, and no_new_privs is set.
func dropAllCaps() error {
	mayDropBounding, err := hasEffectiveCap(unix.CAP_SETPCAP)
	if err != nil {
		return err
	}
	if mayDropBounding {
		if err := dropBoundingSet(); err != nil {
			return err
		}
	}
	if err := ll.AllThreadsPrctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities on all threads: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData // all zero
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno != 0 {
		return fmt.Errorf("empty capability sets on all threads: %w", errno)
	}
	return verifyNoCaps(mayDropBounding)
}

// hasEffectiveCap reports whether the calling thread holds c.
func hasEffectiveCap(c int) (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, fmt.Errorf("read capabilities: %w", err)
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0, nil
}

// dropBoundingSet drops every capability up to the kernel's last from
// the bounding set of every thread.
func dropBoundingSet() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		err := ll.AllThreadsPrctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set on all threads: %w", c, err)
		}
	}
	return nil
}

// lastCap is /proc/sys/kernel/cap_last_cap, or maxCap when unreadable.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return maxCap
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n > maxCap {
		return maxCap
	}
	return n
}

// verifyNoCaps reads every thread's capability sets from /proc and
// fails unless each is empty (the bounding set only when wantBounding).
func verifyNoCaps(wantBounding bool) error {
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("list threads to verify capabilities: %d found (%v)", len(tasks), err)
	}
	for _, status := range tasks {
		sets, err := readCapSets(status)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the thread has exited
		}
		if err != nil {
			return err
		}
		for _, name := range capSets {
			if sets[name] != 0 && (name != "CapBnd" || wantBounding) {
				return fmt.Errorf("%s: %s %016x after dropping every capability", status, name, sets[name])
			}
		}
	}
	return nil
}

// readCapSets parses the Cap* lines of a status file; all five must be
// present.
func readCapSets(path string) (map[string]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read capabilities: %w", err) // wraps ErrNotExist
	}
	defer f.Close()
	sets := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":\t")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		sets[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read capabilities: %s: %w", path, err)
	}
	for _, name := range capSets {
		if _, ok := sets[name]; !ok {
			return nil, fmt.Errorf("%s: no %s line", path, name)
		}
	}
	return sets, nil
}
