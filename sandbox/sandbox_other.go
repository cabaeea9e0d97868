//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// ExecArg is the hidden subcommand that runs a command in its sandbox.
const ExecArg = "__sandbox-exec"

// ExitSandboxFailed is the exit status of ExecMain when no sandbox could
// be applied.
const ExitSandboxFailed = 126

func errOS() error { return fmt.Errorf("%w: %s has no Landlock", ErrUnsupported, runtime.GOOS) }

// Support reports no sandbox support outside Linux.
func Support() Kernel { return Kernel{Arch: runtime.GOARCH} }

// DefaultAgentReadOnly is empty outside Linux.
func DefaultAgentReadOnly() []string { return nil }

// ApplyAgent always fails outside Linux: the agent must not start.
func ApplyAgent(AgentSpec) (Report, error) { return Report{}, errOS() }

// ConfineAgent always fails outside Linux: the agent must not start.
func ConfineAgent(AgentSpec, ProbeTargets) (Report, error) { return Report{}, errOS() }

// RunProbes reports every probe as not blocked outside Linux.
func RunProbes(ProbeTargets) []ProbeResult {
	out := make([]ProbeResult, len(ProbeNames()))
	for i, n := range ProbeNames() {
		out[i] = ProbeResult{Name: n, Detail: errOS().Error()}
	}
	return out
}

// Command always fails outside Linux: nothing runs unsandboxed.
func (CommandSpec) Command(context.Context, string, []string) (*exec.Cmd, error) {
	return nil, errOS()
}

// ExecMain always fails outside Linux.
func ExecMain([]string) int {
	fmt.Fprintf(os.Stderr, "parallax sandbox: %v\n", errOS())
	return ExitSandboxFailed
}

// SetSysProcAttr does nothing outside Linux (Command fails there).
func (CommandSpec) SetSysProcAttr(*exec.Cmd) {}

// UsernsAvailable always fails outside Linux.
func UsernsAvailable() error { return fmt.Errorf("%w: %v", ErrNoUserns, errOS()) }

// ProbeHide always fails outside Linux.
func ProbeHide(context.Context, string) error { return UsernsAvailable() }

// Self fails outside Linux: nothing is started from a path there.
func Self() (string, error) { return "", errOS() }

// TempDirInside is /tmp outside Linux (Command fails there).
func (CommandSpec) TempDirInside() string { return "/tmp" }

// PrepareOverlays fails outside Linux: there are no command sandboxes.
func PrepareOverlays([]Overlay) error { return errOS() }

// CommandCgroup is unused outside Linux.
type CommandCgroup struct{}

// NewCommandCgroup fails outside Linux.
func NewCommandCgroup(Limits) (*CommandCgroup, error) { return nil, errOS() }

// Procs is empty outside Linux.
func (*CommandCgroup) Procs() []string { return nil }

// Remove does nothing outside Linux.
func (*CommandCgroup) Remove() {}

// Notes are empty outside Linux.
func (*CommandCgroup) Notes() []string { return nil }

// ConfineFiles always fails outside Linux: no file operation runs
// unconfined where confinement was asked for.
func ConfineFiles(FilesSpec) error { return errOS() }
