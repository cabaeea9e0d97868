package main

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// startHookDaemon starts this binary's hook daemon for the workspace at
// root, detached (its own session, no terminal, stdio on /dev/null), and
// does not wait for it: this call is decided in process, the next one by
// the daemon. A daemon that finds another one serving the workspace exits.
//
// A daemon that refused to start because the workspace's audit chain does
// not verify leaves a marker (hookDaemonRefusedPath); for hookDaemonBackoff
// after it no other is started, so a broken chain does not cost every
// hook call a process that reads the whole chain only to exit.
func startHookDaemon(root, _ string) {
	if st, err := os.Stat(hookDaemonRefusedPath(root)); err == nil && time.Since(st.ModTime()) < hookDaemonBackoff {
		return
	}
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
