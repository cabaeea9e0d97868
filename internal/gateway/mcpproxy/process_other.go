//go:build !unix

package mcpproxy

import (
	"os"
	"os/exec"
)

// Without process groups only the server process itself is ended.
var (
	sigTerm os.Signal = os.Kill
	sigKill os.Signal = os.Kill
)

func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig os.Signal) { _ = cmd.Process.Signal(sig) }

// groupGone: the caller has seen the process exit.
func groupGone(*exec.Cmd) bool { return true }
