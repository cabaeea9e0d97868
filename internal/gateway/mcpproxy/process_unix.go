//go:build unix

package mcpproxy

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// ownGroup starts cmd in a process group of its own (its pid is the
// group id), so the group can be signalled as one.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// signalGroup sends sig to every process of cmd's group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// groupGone reports whether no live process is left in cmd's group. A
// zombie has exited: when a killed child is not reaped at once (its new
// parent, such as PID 1 in a container, may never reap it) the group
// still exists, but nothing in it runs.
func groupGone(cmd *exec.Cmd) bool {
	pgid := cmd.Process.Pid
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return true
	}
	live, ok := liveInGroup(pgid)
	return ok && !live
}

// liveInGroup scans /proc for a process of group pgid that is not a
// zombie; ok is false without a readable /proc.
func liveInGroup(pgid int) (live, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid && pid > 0 {
			return true, true
		}
	}
	return false, true
}
