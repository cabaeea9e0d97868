package main

import (
	"os"

	"github.com/parallax/parallax/internal/agent/proc"
	"github.com/parallax/parallax/internal/engine"
)

// agentSandbox locks the agent process in before it reads anything: the
// kernel sandbox (Landlock, seccomp) and its probes, unless the engine
// says agent.sandbox is off — the report then says so and the engine
// audits it at every start.
func agentSandbox() (proc.SandboxReport, error) {
	if os.Getenv(engine.EnvAgentSandbox) == "off" {
		return proc.SandboxReport{Disabled: true}, nil
	}
	return proc.KernelSandbox()
}
