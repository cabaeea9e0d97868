//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// pidsV1 is the cgroup v1 pids hierarchy; pidsGroup the directory under
// it that holds one cgroup per command.
const (
	pidsV1    = "/sys/fs/cgroup/pids"
	pidsGroup = "parallax"
)

// PidsCgroup is a pids cgroup made for one command, so that its process
// limit holds where RLIMIT_NPROC does not: the kernel exempts uid 0 from
// RLIMIT_NPROC, so for root the engine bounds a command's tasks with a
// cgroup instead (its wrapper joins it before exec).
type PidsCgroup struct{ dir string }

// NewPidsCgroup makes a cgroup allowing max tasks, in the cgroup v1 pids
// hierarchy. It returns nil and an error where there is none to use
// (cgroup v2 only, or not writable).
func NewPidsCgroup(max uint64) (*PidsCgroup, error) {
	if _, err := os.Stat(filepath.Join(pidsV1, "cgroup.procs")); err != nil {
		return nil, fmt.Errorf("no cgroup v1 pids hierarchy at %s: %w", pidsV1, err)
	}
	base := filepath.Join(pidsV1, pidsGroup)
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("pids cgroup: %w", err)
	}
	dir, err := os.MkdirTemp(base, "cmd-")
	if err != nil {
		return nil, fmt.Errorf("pids cgroup: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("pids cgroup limit: %w", err)
	}
	return &PidsCgroup{dir: dir}, nil
}

// Procs is the file the wrapper writes itself into.
func (c *PidsCgroup) Procs() string { return filepath.Join(c.dir, "cgroup.procs") }

// Remove deletes the cgroup once its tasks are gone (they die with the
// command's PID namespace; the kernel may take a moment). Safe on nil.
func (c *PidsCgroup) Remove() {
	if c == nil {
		return
	}
	for range 50 {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// joinPids moves the calling process into the cgroup whose cgroup.procs
// is procs (a fixed place under the pids hierarchy).
func joinPids(procs string) error {
	if filepath.Dir(filepath.Dir(procs)) != filepath.Join(pidsV1, pidsGroup) || filepath.Base(procs) != "cgroup.procs" {
		return fmt.Errorf("pids cgroup %s is not one of the engine's", procs)
	}
	if err := os.WriteFile(procs, []byte("0"), 0); err != nil {
		return fmt.Errorf("join the command's pids cgroup: %w", err)
	}
	return nil
}

// Hit reports whether a fork was refused for the limit. Safe on nil.
func (c *PidsCgroup) Hit() bool {
	if c == nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "pids.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "max" && f[1] != "0" {
			return true
		}
	}
	return false
}
