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

// cgroupV1 is where the cgroup v1 hierarchies are mounted; cgroupGroup
// the directory under each that holds one cgroup per command.
const (
	cgroupV1    = "/sys/fs/cgroup"
	cgroupGroup = "parallax"
)

// CommandCgroup is the set of cgroups made for one command, so that its
// limits hold where rlimits do not: the kernel exempts uid 0 from
// RLIMIT_NPROC, and RLIMIT_DATA counts neither shared mappings nor what
// several processes hold together. The engine makes them (as root, in
// the cgroup v1 pids and memory hierarchies) and the wrapper joins them
// before anything else.
type CommandCgroup struct {
	dirs  []string // one per hierarchy
	limit Limits
}

// NewCommandCgroup makes the command's cgroups with l's limits (the
// defaults filled in): pids.max, and memory.limit_in_bytes set to the
// whole command's memory. It returns an error where no hierarchy can be
// used (cgroup v2 only, or not writable); then no cgroup was made.
func NewCommandCgroup(l Limits) (*CommandCgroup, error) {
	l = l.WithDefaults()
	c := &CommandCgroup{limit: l}
	for _, h := range []struct {
		name, file string
		value      uint64
	}{
		{"pids", "pids.max", l.Processes},
		{"memory", "memory.limit_in_bytes", l.TotalMemoryBytes},
	} {
		root := filepath.Join(cgroupV1, h.name)
		if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
			continue
		}
		base := filepath.Join(root, cgroupGroup)
		if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			c.Remove()
			return nil, fmt.Errorf("%s cgroup: %w", h.name, err)
		}
		dir, err := os.MkdirTemp(base, "cmd-")
		if err != nil {
			c.Remove()
			return nil, fmt.Errorf("%s cgroup: %w", h.name, err)
		}
		c.dirs = append(c.dirs, dir)
		if err := os.WriteFile(filepath.Join(dir, h.file), []byte(strconv.FormatUint(h.value, 10)), 0); err != nil {
			c.Remove()
			return nil, fmt.Errorf("%s cgroup limit: %w", h.name, err)
		}
	}
	if len(c.dirs) == 0 {
		return nil, fmt.Errorf("no cgroup v1 pids or memory hierarchy under %s", cgroupV1)
	}
	return c, nil
}

// Procs are the files the wrapper writes itself into.
func (c *CommandCgroup) Procs() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.dirs))
	for i, d := range c.dirs {
		out[i] = filepath.Join(d, "cgroup.procs")
	}
	return out
}

// Notes say which limits the command reached, for the model. Safe on nil.
func (c *CommandCgroup) Notes() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, d := range c.dirs {
		switch filepath.Base(filepath.Dir(filepath.Dir(d))) {
		case "pids":
			if counter(filepath.Join(d, "pids.events"), "max") > 0 {
				out = append(out, fmt.Sprintf("the command reached its limit of %d processes", c.limit.Processes))
			}
		case "memory":
			if counter(filepath.Join(d, "memory.oom_control"), "oom_kill") > 0 || readUint(filepath.Join(d, "memory.failcnt")) > 0 {
				out = append(out, fmt.Sprintf("the command reached its memory limit (%d MiB in all; a process was killed or refused memory)",
					c.limit.TotalMemoryBytes>>20))
			}
		}
	}
	return out
}

// counter reads "name value" from a flat keyed file.
func counter(p, name string) uint64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}

func readUint(p string) uint64 {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// Remove deletes the cgroups once their tasks are gone (they die with
// the command's PID namespace; the kernel may take a moment). Safe on
// nil.
func (c *CommandCgroup) Remove() {
	if c == nil {
		return
	}
	for _, d := range c.dirs {
		for range 50 {
			if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// joinCgroups moves the calling process into each cgroup whose
// cgroup.procs is listed (only the engine's own per-command groups).
func joinCgroups(procs []string) error {
	for _, p := range procs {
		h := filepath.Dir(filepath.Dir(filepath.Dir(p)))
		if filepath.Base(filepath.Dir(filepath.Dir(p))) != cgroupGroup || filepath.Dir(h) != cgroupV1 ||
			(filepath.Base(h) != "pids" && filepath.Base(h) != "memory") || filepath.Base(p) != "cgroup.procs" {
			return fmt.Errorf("cgroup %s is not one of the engine's", p)
		}
		if err := os.WriteFile(p, []byte("0"), 0); err != nil {
			return fmt.Errorf("join the command's cgroup %s: %w", p, err)
		}
	}
	return nil
}
