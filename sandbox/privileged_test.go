//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Layers a privileged child applies before its calls.
const (
	layerNone          = "none"           // the control
	layerAgent         = "agent"          // ApplyAgent, all of it
	layerAgentFilter   = "agent-filter"   // the agent's seccomp filter alone, capabilities kept
	layerCommandFilter = "command-filter" // a command's seccomp filter alone (network on)
	layerCaps          = "caps"           // dropAllCaps alone
)

// privChildOutput is what privChild prints, one JSON line.
type privChildOutput struct {
	ApplyErr string            `json:"apply_err,omitempty"`
	Errnos   map[string]string `json:"errnos"` // call name: errno name, "" for success
	Hostname string            `json:"hostname"`
	SetHost  string            `json:"set_host"` // errno of sethostname(privHostname)
}

// privHostname is what privChild tries to name its UTS namespace.
const privHostname = "parallax-sandbox-probe"

// privChild applies the layer in PARALLAX_SANDBOX_TEST_LAYER, makes
// every privileged call, tries to rename the host when
// PARALLAX_SANDBOX_TEST_SETHOST is set (only ever in a fresh UTS
// namespace), prints what happened and, with PARALLAX_SANDBOX_TEST_WAIT,
// waits for stdin to close so the parent can read its /proc entries.
func privChild() int {
	var out privChildOutput
	if err := applyLayer(os.Getenv("PARALLAX_SANDBOX_TEST_LAYER")); err != nil {
		out.ApplyErr = err.Error()
	}
	out.Errnos = map[string]string{}
	for _, c := range privCalls() {
		out.Errnos[c.name] = errnoName(c.call())
	}
	if os.Getenv("PARALLAX_SANDBOX_TEST_SETHOST") != "" {
		out.SetHost = errnoName(errnoOf(unix.Sethostname([]byte(privHostname))))
	}
	var uts unix.Utsname
	if err := unix.Uname(&uts); err == nil {
		out.Hostname = unix.ByteSliceToString(uts.Nodename[:])
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 2
	}
	if os.Getenv("PARALLAX_SANDBOX_TEST_WAIT") != "" {
		io.Copy(io.Discard, os.Stdin)
	}
	return 0
}

func applyLayer(layer string) error {
	switch layer {
	case "", layerNone:
		return nil
	case layerAgent:
		_, err := ApplyAgent(AgentSpec{ReadOnly: DefaultAgentReadOnly()})
		return err
	case layerAgentFilter:
		return installSeccomp(filterKind{agent: true})
	case layerCommandFilter:
		return installSeccomp(filterKind{network: true})
	case layerCaps:
		return dropAllCaps()
	}
	return fmt.Errorf("unknown layer %q", layer)
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EIO
}

func errnoName(e unix.Errno) string {
	if e == 0 {
		return ""
	}
	return unix.ErrnoName(e)
}

// privChildCmd is the test binary as a privileged child in its own
// session (vhangup finds no terminal to hang up) and, with newUTS, its
// own UTS namespace (a sethostname that gets through renames nothing
// outside it).
func privChildCmd(t *testing.T, layer string, newUTS bool, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, roleEnv+"=privileged", "PARALLAX_SANDBOX_TEST_LAYER="+layer)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if newUTS {
		cmd.SysProcAttr.Cloneflags = unix.CLONE_NEWUTS
	}
	return cmd
}

// runPrivChild runs cmd and decodes its output line.
func runPrivChild(t *testing.T, cmd *exec.Cmd) privChildOutput {
	t.Helper()
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("privileged child: %v (%s)", err, stderrOf(err))
	}
	var out privChildOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return out
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// requireRoot skips where the test cannot hold the capabilities whose
// loss it checks.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: an unprivileged caller is refused these calls anyway")
	}
}

// checkPrivRefused wants EPERM for every call (only the cap-gated ones
// when capsOnly), and a control that was not refused.
func checkPrivRefused(t *testing.T, got, control privChildOutput, capsOnly bool) {
	t.Helper()
	if got.ApplyErr != "" {
		t.Fatalf("apply: %s", got.ApplyErr)
	}
	for _, c := range privCalls() {
		if capsOnly && !c.capGated {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if capsOnly && control.Errnos[c.name] == "ENOSYS" {
				t.Skip("not built into this kernel: nothing checks a capability")
			}
			if ctl := control.Errnos[c.name]; ctl == "EPERM" {
				t.Fatalf("control: %s refused unsandboxed too; the check proves nothing", c.name)
			}
			if got.Errnos[c.name] != "EPERM" {
				t.Errorf("got %q, want EPERM (unsandboxed: %q)", got.Errnos[c.name], control.Errnos[c.name])
			}
		})
	}
}

// TestAgentCannotCallPrivilegedSyscalls: after ApplyAgent, as root,
// every privileged call fails with EPERM.
func TestAgentCannotCallPrivilegedSyscalls(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	control := runPrivChild(t, privChildCmd(t, layerNone, false))
	checkPrivRefused(t, runPrivChild(t, privChildCmd(t, layerAgent, false)), control, false)
}

// TestAgentFilterRefusesPrivilegedSyscalls checks the agent's seccomp
// filter on its own: root keeps its capabilities, the filter refuses.
func TestAgentFilterRefusesPrivilegedSyscalls(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	control := runPrivChild(t, privChildCmd(t, layerNone, false))
	checkPrivRefused(t, runPrivChild(t, privChildCmd(t, layerAgentFilter, false)), control, false)
}

// TestCommandFilterRefusesPrivilegedSyscalls: a command's filter on its
// own, for root, which keeps its capabilities in a command.
func TestCommandFilterRefusesPrivilegedSyscalls(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	control := runPrivChild(t, privChildCmd(t, layerNone, false))
	checkPrivRefused(t, runPrivChild(t, privChildCmd(t, layerCommandFilter, false)), control, false)
}

// TestAgentCapabilityDropRefusesPrivilegedSyscalls checks the second
// wall on its own: with every capability dropped and no filter, the
// calls the kernel gates on a capability first fail with EPERM.
func TestAgentCapabilityDropRefusesPrivilegedSyscalls(t *testing.T) {
	requireRoot(t)
	control := runPrivChild(t, privChildCmd(t, layerNone, false))
	checkPrivRefused(t, runPrivChild(t, privChildCmd(t, layerCaps, false)), control, true)
}

// TestCommandCannotCallPrivilegedSyscalls runs the calls as a command,
// as root, through the whole command sandbox.
func TestCommandCannotCallPrivilegedSyscalls(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	f := newCmdFixture(t)
	control := runPrivChild(t, privChildCmd(t, layerNone, false))
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			spec := f.spec()
			spec.Network = network
			checkPrivRefused(t, runPrivCommand(t, spec, false), control, false)
		})
	}
}

// runPrivCommand runs a privileged child as a command under spec, in
// its own session and, with newUTS, UTS namespace.
func runPrivCommand(t *testing.T, spec CommandSpec, newUTS bool, env ...string) privChildOutput {
	t.Helper()
	cmd, err := spec.Command(t.Context(), os.Args[0], []string{os.Args[0], "-test.run=^$"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, append(env, roleEnv+"=privileged", "PARALLAX_SANDBOX_TEST_LAYER="+layerNone)...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if newUTS {
		cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWUTS
	}
	return runPrivChild(t, cmd)
}

// TestAgentCannotSetHostname renames a fresh UTS namespace: the control
// can, the agent cannot, and the name stays.
func TestAgentCannotSetHostname(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	cases := []struct {
		layer   string
		wantErr string
	}{
		{layerNone, ""}, // the control renames its namespace
		{layerAgent, "EPERM"},
		{layerAgentFilter, "EPERM"},
		{layerCaps, "EPERM"},
	}
	for _, tc := range cases {
		t.Run(tc.layer, func(t *testing.T) {
			out := runPrivChild(t, privChildCmd(t, tc.layer, true, "PARALLAX_SANDBOX_TEST_SETHOST=1"))
			checkHostname(t, out, tc.wantErr)
		})
	}
}

// TestCommandCannotSetHostname: the same through a command sandbox.
func TestCommandCannotSetHostname(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	f := newCmdFixture(t)
	out := runPrivCommand(t, f.spec(), true, "PARALLAX_SANDBOX_TEST_SETHOST=1")
	checkHostname(t, out, "EPERM")
}

func checkHostname(t *testing.T, out privChildOutput, wantErr string) {
	t.Helper()
	if out.ApplyErr != "" {
		t.Fatalf("apply: %s", out.ApplyErr)
	}
	if out.SetHost != wantErr {
		t.Errorf("sethostname: got %q, want %q", out.SetHost, wantErr)
	}
	renamed := out.Hostname == privHostname
	if renamed != (wantErr == "") {
		t.Errorf("hostname %q after sethostname(%q) that returned %q", out.Hostname, privHostname, out.SetHost)
	}
}

// TestAgentHoldsNoCapabilities reads, from outside, every thread of an
// agent that ran ApplyAgent as root, started with an ambient capability
// (so inheritable too): all five capability sets are empty. The
// control, unsandboxed, holds all five.
func TestAgentHoldsNoCapabilities(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	for _, layer := range []string{layerNone, layerAgent} {
		t.Run(layer, func(t *testing.T) {
			cmd := privChildCmd(t, layer, false, "PARALLAX_SANDBOX_TEST_WAIT=1")
			cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_NET_BIND_SERVICE}
			for tid, s := range childCapSets(t, cmd) {
				for _, name := range capSets {
					if held := s[name] != 0; held != (layer == layerNone) {
						t.Errorf("thread %s: %s = %016x", tid, name, s[name])
					}
				}
			}
		})
	}
}

// TestAgentWithoutRootHoldsNoCapabilities runs ApplyAgent as uid 65534,
// the way most users run Parallax: it succeeds, and the thread sets are
// empty; the bounding set stays full, which such a process cannot change
// and cannot use (no exec, no user namespace, no_new_privs).
func TestAgentWithoutRootHoldsNoCapabilities(t *testing.T) {
	requireLandlock(t)
	requireRoot(t)
	bin := copyTestBinary(t)
	cmd := privChildCmd(t, layerAgent, false, "PARALLAX_SANDBOX_TEST_WAIT=1")
	cmd.Path, cmd.Args[0] = bin, bin
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	for tid, s := range childCapSets(t, cmd) {
		for _, name := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
			if s[name] != 0 {
				t.Errorf("thread %s: %s = %016x", tid, name, s[name])
			}
		}
	}
}

// childCapSets starts cmd (a waiting privileged child), reads its
// output line, then the capability sets of each of its threads from
// /proc, and lets it exit.
func childCapSets(t *testing.T, cmd *exec.Cmd) map[string]map[string]uint64 {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("child output: %v", err)
	}
	var out privChildOutput
	if err := json.Unmarshal(line, &out); err != nil {
		t.Fatalf("decode %q: %v", line, err)
	}
	if out.ApplyErr != "" {
		t.Fatalf("apply: %s", out.ApplyErr)
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("threads of the child: %d (%v)", len(tasks), err)
	}
	sets := map[string]map[string]uint64{}
	for _, task := range tasks {
		s, err := readCapSets(fmt.Sprintf("/proc/%d/task/%s/status", cmd.Process.Pid, task.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sets[task.Name()] = s
	}
	return sets
}

// copyTestBinary copies the test binary where uid 65534 can run it.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}
