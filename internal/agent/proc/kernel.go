package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/parallax/parallax/sandbox"
)

// EnvProbes carries the agent's probe targets from the engine (JSON of
// ProbeEnv): a workspace file, a home file and an address the engine
// listens on, each of which the sandboxed agent must fail to reach, and
// the two trees the agent's read-only list may not overlap.
const EnvProbes = "PARALLAX_AGENT_PROBES"

// ProbeEnv is the value of EnvProbes.
type ProbeEnv struct {
	Targets         sandbox.ProbeTargets `json:"targets"`
	Workspace, Home string
}

// KernelSandbox confines this process with the kernel sandbox (Landlock,
// seccomp) and runs the probes against the targets the engine named in
// EnvProbes. Any failure, including a probe that was not refused, is an
// error: the agent does not start. The report carries the probes either
// way, for the engine's audit.
func KernelSandbox() (SandboxReport, error) {
	raw := os.Getenv(EnvProbes)
	if raw == "" {
		return SandboxReport{}, errors.New("no probe targets from the engine (" + EnvProbes + ")")
	}
	var pe ProbeEnv
	if err := json.Unmarshal([]byte(raw), &pe); err != nil {
		return SandboxReport{}, fmt.Errorf("probe targets: %w", err)
	}
	t := pe.Targets
	if t.WorkspaceFile == "" || t.HomeFile == "" || t.EngineAddr == "" || pe.Workspace == "" || pe.Home == "" {
		return SandboxReport{}, errors.New("probe targets incomplete: a workspace file, a home file, the engine's address, the workspace and the home are needed")
	}
	_ = os.Unsetenv(EnvProbes)
	spec := sandbox.AgentSpec{ReadOnly: sandbox.DefaultAgentReadOnly(), Forbidden: []string{pe.Workspace, pe.Home}}
	rep, err := sandbox.ConfineAgent(spec, t)
	out := SandboxReport{LandlockABI: uint32(max(rep.LandlockABI, 0)), Seccomp: rep.Seccomp}
	for _, p := range rep.Probes {
		detail := p.Detail
		if p.Errno != "" {
			detail = p.Errno + ": " + detail
		}
		out.Probes = append(out.Probes, Probe{Name: p.Name, Refused: p.Blocked, Detail: detail})
	}
	return out, err
}
