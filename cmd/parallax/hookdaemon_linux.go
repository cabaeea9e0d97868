package main

import (
	"os"
	"os/exec"
	"syscall"
)

// startHookDaemon starts this binary's hook daemon for the workspace at
// root, detached (its own session, no terminal, stdio on /dev/null), and
// does not wait for it: this call is decided in process, the next one by
// the daemon. A daemon that finds another one serving the workspace exits.
func startHookDaemon(root, _ string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "hook", "claude-code", "daemon", "--workspace", root) //nolint:gosec // this binary
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}
