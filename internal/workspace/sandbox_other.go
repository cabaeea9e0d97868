//go:build !linux

package workspace

import (
	"fmt"
	"runtime"
)

// SandboxChecks reports that the agent sandbox (Landlock, seccomp) is
// Linux only. A WARN: the gate works without it.
func SandboxChecks() []Check {
	return []Check{{Name: "sandbox", Status: StatusWarn,
		Detail: fmt.Sprintf("not available: the own-agent sandbox needs Linux (Landlock, seccomp); this is %s", runtime.GOOS),
		Fix:    "run agents you own on Linux for the kernel boundary; hooks, the MCP proxy and the HTTP API work here"}}
}
